// Read a process's /proc/<pid>/stat: the one parser for the fields the harness uses (state, process group, start time),
// and the one rule for telling a lock holder from a recycled PID (pid + start time: the store's and the run folder's locks).
import { existsSync, readFileSync } from 'node:fs';

/** The fields of /proc/<pid>/stat the harness reads. */
export interface ProcStat {
  /** Field 3: R, S, D, Z (zombie), X (dead), T... */
  state: string;
  /** Field 5: process group id. */
  pgrp: number;
  /** Field 22: start time in clock ticks since boot (a string: it is compared, never computed with). */
  startTime: string;
}

/** Parse the text of a /proc/<pid>/stat file; null if it is not one. */
export function parseProcStat(text: string): ProcStat | null {
  // pid (comm) state ppid pgrp ...: comm may contain spaces and ')', so split after the last ')'.
  const close = text.lastIndexOf(')');
  if (close < 0) return null;
  const fields = text.slice(close + 2).split(' '); // fields[0] is field 3 (state)
  const state = fields[0];
  const pgrp = Number(fields[2]);
  const startTime = fields[19];
  if (state === undefined || state === '' || !Number.isInteger(pgrp) || startTime === undefined) return null;
  return { state, pgrp, startTime };
}

/** Read and parse /proc/<pid>/stat; null when the process does not exist (or /proc is not there). */
export function readProcStat(pid: number | string): ProcStat | null {
  try {
    return parseProcStat(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return null;
  }
}

/** Whether process `pid` runs (not a zombie); without /proc, whether a signal could reach it. A recycled PID counts. */
export function pidAlive(pid: number): boolean {
  const stat = readProcStat(pid);
  if (stat !== null) return stat.state !== 'Z' && stat.state !== 'X';
  if (existsSync('/proc/self/stat')) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Start time of a running process (field 22 of /proc/<pid>/stat); null when it does not exist or is a zombie. */
export function processStart(pid: number): string | null {
  const stat = readProcStat(pid);
  return stat === null || stat.state === 'Z' || stat.state === 'X' ? null : stat.startTime;
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
