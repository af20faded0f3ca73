// A lock's temp file left by a taker that died mid-write (locks/.<kind>-<pid>-<id>.json.tmp-<pid>-<start>-<random>): gc
// sweeps those whose maker is gone (pid and start time: a recycled PID is gone too), never one of a live process (it
// may be writing its lock right now), nor a name that records no maker.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { processStart } from '../../harness/core/proc.js';
import { gcStore } from '../../harness/store/gc.js';
import { LOCKS_DIR, sweepDeadLockTemps } from '../../harness/store/lock.js';
import { Store } from '../../harness/store/store.js';
import { bytes } from '../helpers/bytes.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'soak-lock-temps-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** The PID of a process that ran and exited (reaped): dead for sure, unless the kernel recycles it at once. */
function deadPid(): number {
  return spawnSync('true').pid;
}

/** A lock temp's name as writeFileAtomic makes it, made by `pid` started at `start`. */
const tempName = (kind: string, pid: number, start: string | null, random = '0123456789abcdef'): string =>
  `.${kind}-${pid}-0a1b2c3d4e5f.json.tmp-${pid}-${start ?? 'x'}-${random}`;

function plant(name: string): string {
  const locks = path.join(dir, LOCKS_DIR);
  mkdirSync(locks, { recursive: true });
  const file = path.join(locks, name);
  writeFileSync(file, '{"kind":"wri'); // torn: the taker died while writing
  return file;
}

describe('lock temp files of crashed takers', () => {
  it('gc sweeps the temp files of dead and recycled makers and keeps those of live ones', async () => {
    const store = Store.open(dir);
    const w = store.begin(10);
    await w.put('p', bytes('p', 4096));
    w.commit();
    store.close();
    const sleeper = spawn('sleep', ['60'], { stdio: 'ignore' });
    try {
      const dead = plant(tempName('writer', deadPid(), '12345'));
      const recycled = plant(tempName('writer', sleeper.pid!, '1', 'aaaaaaaaaaaaaaaa')); // its PID runs, another process
      const mine = plant(tempName('shared', process.pid, processStart(process.pid)));
      const live = plant(tempName('exclusive', sleeper.pid!, processStart(sleeper.pid!), 'fedcba9876543210'));
      const odd = plant('.whatever.json.tmp-0123456789abcdef');
      const old = plant(`.writer-${deadPid()}-0a1b2c3d4e5f.json.tmp-0123456789abcdef`); // records no maker
      const report = gcStore(Store.open(dir), 1);
      expect(existsSync(dead)).toBe(false);
      expect(existsSync(recycled)).toBe(false);
      expect(existsSync(mine)).toBe(true);
      expect(existsSync(live)).toBe(true);
      expect(existsSync(odd)).toBe(true);
      expect(existsSync(old)).toBe(true);
      expect(report.lockTempsRemoved).toBe(2);
    } finally {
      sleeper.kill('SIGKILL');
    }
  });

  it('sweepDeadLockTemps on a store without locks/ sweeps nothing; a dead holder found alive again is kept', () => {
    expect(sweepDeadLockTemps(dir)).toEqual([]);
    const ours = plant(tempName('writer', process.pid, processStart(process.pid)));
    expect(sweepDeadLockTemps(dir)).toEqual([]);
    expect(readdirSync(path.join(dir, LOCKS_DIR))).toEqual([path.basename(ours)]);
  });
});
