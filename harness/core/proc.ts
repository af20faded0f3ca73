// Read a process's /proc/<pid>/stat: the one parser for the fields the harness uses (state, parent, process group,
// session, start time), and the one rule for telling a lock holder from a recycled PID (pid + start time: the store's
// and the run folder's locks).
import { existsSync, readdirSync, readFileSync } from 'node:fs';

/** The fields of /proc/<pid>/stat the harness reads. */
export interface ProcStat {
  /** Field 3: R, S, D, Z (zombie), X (dead), T... */
  state: string;
  /** Field 4: parent process id (0 for the kernel's own). */
  ppid: number;
  /** Field 5: process group id. */
  pgrp: number;
  /** Field 6: session id. */
  sid: number;
  /** Field 22: start time in clock ticks since boot (digits: compared with startedBefore, never computed with). */
  startTime: string;
}

/** Parse the text of a /proc/<pid>/stat file; null if it is not one. */
export function parseProcStat(text: string): ProcStat | null {
  // pid (comm) state ppid pgrp ...: comm may contain spaces and ')', so split after the last ')'.
  const close = text.lastIndexOf(')');
  if (close < 0) return null;
  const fields = text.slice(close + 2).split(' '); // fields[0] is field 3 (state)
  const state = fields[0];
  const [ppid, pgrp, sid] = [fields[1], fields[2], fields[3]].map((f) =>
    f === undefined || f === '' ? NaN : Number(f),
  );
  const startTime = fields[19];
  if (state === undefined || state === '' || startTime === undefined || !/^\d+$/.test(startTime)) return null;
  if (![ppid, pgrp, sid].every((n) => Number.isInteger(n))) return null;
  return { state, ppid: ppid!, pgrp: pgrp!, sid: sid!, startTime };
}

/** Read and parse /proc/<pid>/stat; null when the process does not exist (or /proc is not there). */
export function readProcStat(pid: number | string): ProcStat | null {
  try {
    return parseProcStat(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return null;
  }
}

/** Whether start time `a` is earlier than `b` (both /proc start times: clock ticks since boot, as digits). */
export function startedBefore(a: string, b: string): boolean {
  return BigInt(a) < BigInt(b);
}

/** Whether a stat says the process is gone but not yet reaped (a zombie) or dead. */
export function isDead(stat: ProcStat): boolean {
  return stat.state === 'Z' || stat.state === 'X';
}

/** Whether process `pid` runs (not a zombie); without /proc, whether a signal could reach it. A recycled PID counts. */
export function pidAlive(pid: number): boolean {
  const stat = readProcStat(pid);
  if (stat !== null) return !isDead(stat);
  if (existsSync('/proc/self/stat')) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Whether process group `pgid` has a member a signal could reach (zombies count: kill(2) does not tell them apart). */
export function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Start time of a running process (field 22 of /proc/<pid>/stat); null when it does not exist or is a zombie. */
export function processStart(pid: number): string | null {
  const stat = readProcStat(pid);
  return stat === null || isDead(stat) ? null : stat.startTime;
}

const hasProc = processStart(process.pid) !== null;

/**
 * True while the process that recorded itself as (`pid`, `start`) still runs: the same PID with the same start time
 * (a recycled PID is another process). Without /proc (start null everywhere), whether a signal reaches the PID.
 */
export function sameProcessAlive(holder: { pid: number; start: string | null }): boolean {
  if (hasProc) return holder.start !== null && processStart(holder.pid) === holder.start;
  try {
    process.kill(holder.pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The running processes of process group `pgid` (zombies left out); none without /proc. */
export function groupMembers(pgid: number): number[] {
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return [];
  }
  return names.flatMap((n) => {
    if (!/^\d+$/.test(n)) return [];
    const stat = readProcStat(n);
    return stat !== null && stat.pgrp === pgid && !isDead(stat) ? [Number(n)] : [];
  });
}
