// A lock's temp file left by a taker that died mid-write (locks/.<kind>-<pid>-<id>.json.tmp-<random>): gc sweeps those of
// dead PIDs, never one of a live process (it may be writing its lock right now), nor a name it cannot read a PID from.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
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

function plant(name: string): string {
  const locks = path.join(dir, LOCKS_DIR);
  mkdirSync(locks, { recursive: true });
  const file = path.join(locks, name);
  writeFileSync(file, '{"kind":"wri'); // torn: the taker died while writing
  return file;
}

describe('lock temp files of crashed takers', () => {
  it('gc sweeps the temp file of a dead PID and keeps those of live ones', async () => {
    const store = Store.open(dir);
    const w = store.begin(10);
    await w.put('p', bytes('p', 4096));
    w.commit();
    store.close();
    const sleeper = spawn('sleep', ['60'], { stdio: 'ignore' });
    try {
      const dead = plant(`.writer-${deadPid()}-0a1b2c3d4e5f.json.tmp-0123456789abcdef`);
      const mine = plant(`.shared-${process.pid}-0a1b2c3d4e5f.json.tmp-0123456789abcdef`);
      const live = plant(`.exclusive-${sleeper.pid!}-0a1b2c3d4e5f.json.tmp-fedcba9876543210`);
      const odd = plant('.whatever.json.tmp-0123456789abcdef');
      const report = gcStore(Store.open(dir), 1);
      expect(existsSync(dead)).toBe(false);
      expect(existsSync(mine)).toBe(true);
      expect(existsSync(live)).toBe(true);
      expect(existsSync(odd)).toBe(true);
      expect(report.lockTempsRemoved).toBe(1);
    } finally {
      sleeper.kill('SIGKILL');
    }
  });

  it('sweepDeadLockTemps on a store without locks/ sweeps nothing; a dead holder found alive again is kept', () => {
    expect(sweepDeadLockTemps(dir)).toEqual([]);
    const ours = plant(`.writer-${process.pid}-00.json.tmp-00`);
    expect(sweepDeadLockTemps(dir)).toEqual([]);
    expect(readdirSync(path.join(dir, LOCKS_DIR))).toEqual([path.basename(ours)]);
  });
});
