// The host's proof that an adapter's kill list names only the adapter's own processes: each PID a descendant of the
// adapter process the host spawned (parent ids walked up to it, its start time unchanged), never on the never-list
// (core/kill-guard.ts), a group only through its leader. The proven list carries each start time, so the runner can
// check at kill time that the PID still is that process.
import { type KillEntry, type NeverKilled, neverReason } from '../../core/kill-guard.js';
import { isDead, readProcStat, startedBefore } from '../../core/proc.js';

/** The adapter process the host spawned: its PID and start time; `detachNote`: why a detached process cannot be proven. */
export interface AdapterIdentity {
  pid: number;
  startTime: string;
  /** Set when the adapter runs without the subreaper launcher (no C compiler): processes it detaches leave its tree. */
  detachNote: string | null;
}

/** A proven kill list (gone or zombie processes dropped: nothing to kill), or the first refusal, naming its field. */
export type KillProof = { ok: true; entries: KillEntry[]; dropped: string[] } | { ok: false; refusal: string };

/** Longest parent chain walked (a loop in a racing /proc read must not spin). */
const MAX_DEPTH = 1024;

/** Why live process `pid` (started at `startTime`) is not a descendant of the adapter; null when it is. */
function descentRefusal(pid: number, startTime: string, adapter: AdapterIdentity): string | null {
  const notOurs = (why: string): string =>
    `pid ${pid} is not a descendant of adapter pid ${adapter.pid} (${why})${adapter.detachNote ? `; ${adapter.detachNote}` : ''}`;
  if (startedBefore(startTime, adapter.startTime)) return notOurs('it started before the adapter');
  let cur = pid;
  for (let depth = 0; depth < MAX_DEPTH; depth++) {
    const stat = readProcStat(cur);
    if (stat === null) return notOurs(`its ancestor pid ${cur} is gone`);
    if (stat.ppid === adapter.pid) {
      const a = readProcStat(adapter.pid);
      return a?.startTime === adapter.startTime ? null : notOurs(`pid ${adapter.pid} is no longer the adapter`);
    }
    if (stat.ppid <= 1) return notOurs(`its parent chain ends at pid ${stat.ppid}`);
    cur = stat.ppid;
  }
  return notOurs('its parent chain does not end');
}

/** Check one named process: a refusal, 'gone' (nothing to kill), or its entry. */
function proveOne(
  pid: number,
  group: boolean,
  adapter: AdapterIdentity,
  never: NeverKilled,
): string | KillEntry | null {
  const barred = neverReason(pid, never);
  if (barred !== null) return barred;
  const stat = readProcStat(pid);
  if (stat === null || isDead(stat)) return null;
  if (group && stat.pgrp !== pid)
    return `pid ${pid} does not lead a process group (its group is ${stat.pgrp}): only a group's leader names it`;
  if (pid === adapter.pid) return null; // the adapter itself (in the host's group): killed with the host anyway
  return descentRefusal(pid, stat.startTime, adapter) ?? { pid, startTime: stat.startTime, group };
}

/** Prove every entry of a kill list (`groups` first: a PID also named as a group is killed as the group). */
export function proveKillList(
  list: { pids: readonly number[]; groups: readonly number[] },
  adapter: AdapterIdentity,
  never: NeverKilled,
): KillProof {
  const entries: KillEntry[] = [];
  const dropped: string[] = [];
  const named: [string, number, boolean][] = [
    ...list.groups.map((g, i): [string, number, boolean] => [`groups[${i}]`, g, true]),
    ...list.pids.map((p, i): [string, number, boolean] => [`pids[${i}]`, p, false]),
  ];
  for (const [field, pid, group] of named) {
    const r = proveOne(pid, group, adapter, never);
    if (typeof r === 'string') return { ok: false, refusal: `${field} = ${pid}: ${r}` };
    if (r === null) dropped.push(`${field} = ${pid}`);
    else if (!entries.some((e) => e.pid === r.pid)) entries.push(r);
  }
  return { ok: true, entries, dropped };
}
