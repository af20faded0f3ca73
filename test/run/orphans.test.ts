// killOrphans finds a live process group recorded as a host of this run (its argv names the run folder) and kills it;
// it leaves alone a group that does not belong to the run.
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import type { JournalEvent } from '../../harness/journal/events.js';
import {
  declaredKillLists,
  declaredProcesses,
  hostGroups,
  killDeclared,
  killOrphans,
  orphanProcesses,
} from '../../harness/run/orphans.js';

const hostStart = (pid: number): JournalEvent => ({
  schemaVersion: 1,
  t: 0,
  type: 'host-start',
  cycle: 1,
  pid,
  mode: 'boot',
});
const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('orphans', () => {
  it('kills the process group of a recorded host that names the run folder, and only that', async () => {
    const runDir = `/tmp/soak-orphan-test-${process.pid}`;
    const ours = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)', runDir], {
      detached: true,
      stdio: 'ignore',
    });
    const theirs = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)', '/somewhere/else'], {
      detached: true,
      stdio: 'ignore',
    });
    const exited = new Promise((r) => ours.once('exit', r));
    try {
      const events = hostGroups([hostStart(ours.pid!), hostStart(theirs.pid!)]);
      expect(events).toEqual(new Set([ours.pid, theirs.pid]));
      await new Promise((r) => setTimeout(r, 200));
      expect(orphanProcesses(events, runDir).map((p) => p.pid)).toEqual([ours.pid]);
      expect(killOrphans(events, runDir)).toEqual([ours.pid]);
      await exited;
      expect(alive(ours.pid!)).toBe(false);
      expect(alive(theirs.pid!)).toBe(true);
      expect(orphanProcesses(events, runDir)).toEqual([]);
    } finally {
      theirs.kill('SIGKILL');
      ours.kill('SIGKILL');
    }
  });
});

describe("orphans: an exec adapter's kill list", () => {
  it('kills a declared process still running with its declared start time, and never a recycled PID', async () => {
    const sandbox = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { detached: true, stdio: 'ignore' });
    const other = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { detached: true, stdio: 'ignore' });
    const exited = new Promise((r) => sandbox.once('exit', r));
    try {
      const procs = declaredProcesses({ pids: [sandbox.pid!], groups: [] });
      expect(procs).toMatchObject([{ pid: sandbox.pid, group: false }]);
      const event: JournalEvent = { schemaVersion: 1, t: 0, type: 'kill-list', cycle: 1, host: 1, procs };
      // negative control: the same PID with another start time is another process (recycled): left alone
      const recycled = { pid: other.pid!, group: true, startTime: '1' };
      expect(killDeclared([...declaredKillLists([event]), recycled])).toEqual([sandbox.pid]);
      await exited;
      expect(alive(sandbox.pid!)).toBe(false);
      expect(alive(other.pid!)).toBe(true);
      expect(killDeclared(declaredKillLists([event]))).toEqual([]);
    } finally {
      sandbox.kill('SIGKILL');
      other.kill('SIGKILL');
    }
  });
});
