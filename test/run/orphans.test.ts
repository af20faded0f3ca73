// killOrphans finds a live process group recorded as a host of this run (its argv names the run folder) and kills it;
// it leaves alone a group that does not belong to the run. killDeclared kills a journaled kill list's processes that
// are still the ones declared, and none that is recycled, older than its host, unproven, or the runner itself.
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import type { DeclaredProcess, JournalEvent } from '../../harness/journal/events.js';
import { readProcStat } from '../../harness/core/proc.js';
import {
  declaredKillLists,
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
async function until(probe: () => boolean): Promise<void> {
  for (let i = 0; !probe(); i++) {
    if (i > 500) throw new Error('not observed within 10 s');
    await new Promise((r) => setTimeout(r, 20));
  }
}
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

describe("orphans: an exec adapter's kill list, killed by a resumed run", () => {
  const forever = (): ReturnType<typeof spawn> =>
    spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { detached: true, stdio: 'ignore' });
  const startOf = (pid: number): string => readProcStat(pid)!.startTime;
  const killList = (host: number, hostStartTime: string | undefined, procs: DeclaredProcess[]): JournalEvent => ({
    schemaVersion: 1,
    t: 0,
    type: 'kill-list',
    cycle: 1,
    host,
    ...(hostStartTime !== undefined ? { hostStartTime } : {}),
    procs,
  });

  it('kills a declared process still running with its declared start time, and never a recycled PID', async () => {
    const host = forever();
    await until(() => readProcStat(host.pid!) !== null);
    const sandbox = forever();
    const other = forever();
    const exited = new Promise((r) => sandbox.once('exit', r));
    try {
      await until(() => readProcStat(sandbox.pid!) !== null && readProcStat(other.pid!) !== null);
      const events = [
        hostStart(host.pid!),
        killList(host.pid!, startOf(host.pid!), [
          { pid: sandbox.pid!, group: true, startTime: startOf(sandbox.pid!) },
          // negative control: the same PID with another start time is another process (recycled): left alone
          { pid: other.pid!, group: true, startTime: String(BigInt(startOf(other.pid!)) + 1n) },
        ]),
      ];
      const r = killDeclared(declaredKillLists(events));
      expect(r.killed).toEqual([sandbox.pid]);
      expect(r.spared.join('\n')).toMatch(new RegExp(`pid ${other.pid} is another process now .*recycled`));
      await exited;
      expect(alive(other.pid!)).toBe(true);
      expect(killDeclared(declaredKillLists(events)).killed).toEqual([]);
    } finally {
      for (const p of [host, sandbox, other]) p.kill('SIGKILL');
    }
  });

  it('refuses a process older than its declaring host, a host the journal never started, a list without the host start time, and the runner', async () => {
    const victim = forever(); // started before the host: cannot be the host's
    await until(() => readProcStat(victim.pid!) !== null);
    let host = forever();
    try {
      // a start time is in clock ticks: start hosts until one starts a tick after the victim
      for (;;) {
        await until(() => readProcStat(host.pid!) !== null);
        if (BigInt(startOf(host.pid!)) > BigInt(startOf(victim.pid!))) break;
        host.kill('SIGKILL');
        host = forever();
      }
      const entry = { pid: victim.pid!, group: false, startTime: startOf(victim.pid!) };
      const me = { pid: process.pid, group: false, startTime: startOf(process.pid) };
      const older = killDeclared(
        declaredKillLists([hostStart(host.pid!), killList(host.pid!, startOf(host.pid!), [entry])]),
      );
      expect(older).toEqual({
        killed: [],
        spared: [`pid ${victim.pid} started before host ${host.pid}, which declared it: not the host's`],
      });
      // a kill list whose host has no host-start: not read at all
      expect(declaredKillLists([killList(host.pid!, '0', [entry])])).toEqual([]);
      const unproven = killDeclared(declaredKillLists([hostStart(host.pid!), killList(host.pid!, undefined, [entry])]));
      expect(unproven.spared[0]).toMatch(/does not carry the start time of host/);
      // the runner itself, declared with its true start time by a host that (the journal says) started at boot
      const runner = killDeclared(declaredKillLists([hostStart(host.pid!), killList(host.pid!, '0', [me])]));
      expect(runner).toEqual({ killed: [], spared: [`pid ${process.pid} is never killed: it is the runner`] });
      expect(alive(victim.pid!)).toBe(true);
    } finally {
      victim.kill('SIGKILL');
      host.kill('SIGKILL');
    }
  });
});
