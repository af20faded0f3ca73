// What the harness may SIGKILL on an adapter's word (a kill list): never 0, 1, a negative id, the runner, its parent,
// its group or session, the session host or its group; and only the very process that was declared (same start time,
// not a zombie; a group only while its leader still leads it). The host proves descent first (targets/exec/kill-proof.ts);
// the runner checks again here when it kills (session/host-handle.ts) and when a resumed run kills a journal's list.
import { isDead, readProcStat } from './proc.js';

/** One process a kill list names, identified by its start time; `group`: kill its whole process group (it leads it). */
export interface KillEntry {
  pid: number;
  startTime: string;
  group: boolean;
}

/** Processes never killed on a kill list, each with why. */
export type NeverKilled = ReadonlyMap<number, string>;

/**
 * The never-list seen from a process of the run: `runnerPid` the runner, `hostPid` the session host (absent for a
 * resumed run's orphans: the runner kills their groups itself). The runner's parent, group and session and the host's
 * group are read from /proc now.
 */
export function neverKilled(runnerPid: number, hostPid?: number): NeverKilled {
  const never = new Map<number, string>([
    [0, "is never killed (kill(0) is the caller's own group)"],
    [1, 'is never killed (init)'],
  ]);
  const add = (pid: number | undefined, why: string): void => {
    if (pid !== undefined && pid > 0 && !never.has(pid)) never.set(pid, `is never killed: it ${why}`);
  };
  add(runnerPid, 'is the runner');
  const runner = readProcStat(runnerPid);
  add(runner?.ppid, "is the runner's parent");
  add(runner?.pgrp, "leads the runner's process group");
  add(runner?.sid, "leads the runner's session");
  if (hostPid !== undefined) {
    add(hostPid, 'is the session host');
    add(readProcStat(hostPid)?.pgrp, "leads the session host's process group");
  }
  return never;
}

/** Why `pid` may not be named at all (not a positive integer, or on the never-list); null when it may. */
export function neverReason(pid: number, never: NeverKilled): string | null {
  if (!Number.isSafeInteger(pid) || pid <= 0) return `pid ${pid} is never killed (not a positive process id)`;
  const why = never.get(pid);
  return why === undefined ? null : `pid ${pid} ${why}`;
}

/** Why `e` must not be killed now (never-listed, gone, recycled, a zombie, no longer its group's leader); null: kill it. */
export function killRefusal(e: KillEntry, never: NeverKilled): string | null {
  const barred = neverReason(e.pid, never);
  if (barred !== null) return barred;
  const stat = readProcStat(e.pid);
  if (stat === null) return `pid ${e.pid} is gone`;
  if (stat.startTime !== e.startTime)
    return `pid ${e.pid} is another process now (start time ${stat.startTime}, declared ${e.startTime}): recycled`;
  if (isDead(stat)) return `pid ${e.pid} is a zombie (already dead)`;
  if (e.group && stat.pgrp !== e.pid) return `pid ${e.pid} no longer leads its process group`;
  return null;
}

/**
 * Send `signal` (SIGKILL; SIGSTOP/SIGCONT for a freeze) to each entry that passes killRefusal (a group entry: its whole
 * group); the PIDs signalled and why the live ones that were not were spared (a gone process is no news).
 */
export function signalEntries(
  entries: readonly KillEntry[],
  never: NeverKilled,
  signal: NodeJS.Signals = 'SIGKILL',
): { hit: number[]; spared: string[] } {
  const hit: number[] = [];
  const spared: string[] = [];
  for (const e of entries) {
    if (readProcStat(e.pid) === null) continue; // gone: nothing to signal, nothing to report
    const refusal = killRefusal(e, never);
    if (refusal !== null) {
      spared.push(refusal);
      continue;
    }
    try {
      process.kill(e.group ? -e.pid : e.pid, signal);
      hit.push(e.pid);
    } catch {
      // exited between the check and the signal
    }
  }
  return { hit, spared };
}
