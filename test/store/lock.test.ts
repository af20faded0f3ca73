// The store's locks: shared locks coexist, a writer excludes writers, an exclusive (gc) lock excludes everyone; a
// killed holder's lock is stale and a recycled PID does not keep it alive; the runner's run-long lease keeps gc out
// while a killed host's lock is stale (the restore window of finding 1).
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EXIT } from '../../harness/core/errors.js';
import { gcStore } from '../../harness/store/gc.js';
import { type LockBody, type LockKind, LOCKS_DIR, StoreBusyError, StoreLock } from '../../harness/store/lock.js';
import { Store } from '../../harness/store/store.js';
import { thrown } from '../helpers/thrown.js';

let dir: string;
const children: ChildProcess[] = [];
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'soak-lock-'));
});
afterEach(() => {
  for (const c of children.splice(0)) c.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

/** A live child process and its start time (field 22 of /proc/<pid>/stat), as a lock records them. */
async function liveChild(): Promise<{ child: ChildProcess; pid: number; start: string }> {
  const child = spawn('sleep', ['60'], { stdio: 'ignore' });
  children.push(child);
  await new Promise<void>((resolve, reject) => {
    child.once('spawn', resolve);
    child.once('error', reject);
  });
  const stat = readFileSync(`/proc/${child.pid}/stat`, 'utf8');
  return { child, pid: child.pid!, start: stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]! };
}

/** Kill a child with SIGKILL and wait until it is reaped (its PID no longer runs as that process). */
async function killChild(child: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}

/** Plant a lock file as another process would have written it. */
function plant(kind: LockKind, pid: number, start: string, purpose: string): string {
  const body: LockBody = { kind, pid, start, purpose, at: 'then' };
  mkdirSync(path.join(dir, LOCKS_DIR), { recursive: true });
  const file = path.join(dir, LOCKS_DIR, `${kind}-${pid}-planted.json`);
  writeFileSync(file, JSON.stringify(body));
  return file;
}

async function fill(n: number): Promise<void> {
  const store = Store.open(dir);
  for (let i = 1; i <= n; i++) {
    const w = store.begin(i);
    await w.put('own', Buffer.from(`checkpoint ${i} `.repeat(2000)));
    w.commit();
  }
  store.close();
}

/** `soak store gc` in-process: open with an exclusive lock, collect, close. */
function gc(keep: number): number[] {
  const store = Store.open(dir, { lock: 'exclusive', purpose: 'gc' });
  try {
    return gcStore(store, keep).removed;
  } finally {
    store.close();
  }
}

const lockFiles = (): string[] => readdirSync(path.join(dir, LOCKS_DIR));

describe('lock kinds', () => {
  it('shared locks coexist; exclusive refuses beside any live lock (exit 3, naming the PID) and vice versa', () => {
    const a = StoreLock.acquire(dir, 'shared', 'reader a');
    const b = StoreLock.acquire(dir, 'shared', 'reader b');
    const busy = thrown(() => StoreLock.acquire(dir, 'exclusive', 'gc'));
    expect(busy).toBeInstanceOf(StoreBusyError);
    expect(busy).toHaveProperty('exitCode', EXIT.badInput);
    expect(busy.message).toContain(`PID ${process.pid}`);
    expect(lockFiles()).toHaveLength(2); // the refused taker removed its own file
    a.release();
    b.release();
    const x = StoreLock.acquire(dir, 'exclusive', 'gc');
    // A shared taker waits for the exclusive holder to go, then gives up naming it.
    const waited = thrown(() => StoreLock.acquire(dir, 'shared', 'late reader', 30));
    expect(waited).toBeInstanceOf(StoreBusyError);
    expect(waited.message).toMatch(/gc, exclusive lock/);
    expect(thrown(() => StoreLock.acquire(dir, 'exclusive', 'second gc'))).toBeInstanceOf(StoreBusyError);
    x.release();
    expect(lockFiles()).toEqual([]);
  });

  it('one writer at a time, readers beside it; a Store holds its lock from open to close', async () => {
    const w = StoreLock.acquire(dir, 'writer', 'host 1');
    expect(thrown(() => StoreLock.acquire(dir, 'writer', 'host 2', 20))).toBeInstanceOf(StoreBusyError);
    StoreLock.acquire(dir, 'shared', 'reader').release();
    w.release();
    await fill(2);
    const open = Store.open(dir, { purpose: 'restoring host' });
    expect(thrown(() => gc(1)).message).toMatch(/restoring host/);
    const other = Store.open(dir, { purpose: 'another reader' });
    expect(thrown(() => gcStore(open, 1)).message).toMatch(/another reader/); // its own lock never stands in its way
    other.close();
    expect(gcStore(open, 1).removed).toEqual([1]);
    open.close();
    expect(lockFiles()).toEqual([]);
  });
});

describe('stale locks', () => {
  it("a killed holder's lock is stale; a live one is not; a recycled PID (same PID, other start) is stale", async () => {
    await fill(3);
    const live = await liveChild();
    const planted = plant('shared', live.pid, live.start, 'session host (restore)');
    const busy = thrown(() => gc(2));
    expect(busy).toBeInstanceOf(StoreBusyError);
    expect(busy.message).toContain(`PID ${live.pid}`);
    expect(readdirSync(path.join(dir, 'checkpoints')).filter((f) => f.endsWith('.json'))).toHaveLength(3);
    // Recycled PID: the process running under that PID started at another time, so it is not the holder.
    writeFileSync(planted, JSON.stringify({ ...JSON.parse(readFileSync(planted, 'utf8')), start: '1' }));
    expect(gc(2)).toEqual([1]);
    expect(lockFiles()).toEqual([]); // the stale lock went with gc's own
    // A killed holder (SIGKILL leaves its lock behind): stale once it is dead.
    plant('writer', live.pid, live.start, 'session host (boot)');
    expect(thrown(() => StoreLock.acquire(dir, 'exclusive', 'gc'))).toBeInstanceOf(StoreBusyError);
    await killChild(live.child);
    expect(gc(1)).toEqual([2]);
    expect(lockFiles()).toEqual([]);
  });

  it('an unreadable lock file is never taken for stale', async () => {
    await fill(2);
    mkdirSync(path.join(dir, LOCKS_DIR), { recursive: true });
    writeFileSync(path.join(dir, LOCKS_DIR, 'shared-1-x.json'), '{"kind":');
    const busy = thrown(() => gc(1));
    expect(busy).toBeInstanceOf(StoreBusyError);
    expect(busy.message).toContain('shared-1-x.json');
  });
});

describe('run lease', () => {
  it("while the runner's lease lives, a killed host's stale lock does not let gc in (the restore window)", async () => {
    await fill(3);
    const runner = await liveChild();
    const host = await liveChild();
    plant('shared', runner.pid, runner.start, 'run lease');
    plant('writer', host.pid, host.start, 'session host (boot)');
    await killChild(host.child); // SIGKILLed mid-run: its lock is stale, the next host has not opened the store yet
    for (let i = 0; i < 3; i++) {
      const busy = thrown(() => gc(1));
      expect(busy).toBeInstanceOf(StoreBusyError);
      expect(busy.message).toContain(`PID ${runner.pid} (run lease`);
    }
    expect(readdirSync(path.join(dir, 'checkpoints')).filter((f) => f.endsWith('.json'))).toHaveLength(3);
    // Negative control: once the runner is gone too, every lock is stale and gc runs.
    await killChild(runner.child);
    expect(gc(1)).toEqual([1, 2]);
  });
});
