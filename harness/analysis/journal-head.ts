// What a journal's first line (its run-start) says before the journal is read: whether the run had several sessions
// at once (issue 36), whose journal is folded on one thread (the threads' partial folds key cycles without sessions).
import { closeSync, openSync, readSync } from 'node:fs';

/** Longest first line looked at (a run-start is a few KiB: the scenario and the environment). */
const HEAD_BYTES = 1 << 20;

/** True when `file`'s first line is a run-start of a scenario with sessions > 1 (false: not, or not readable so). */
export function ranSeveralSessions(file: string): boolean {
  const buf = Buffer.alloc(HEAD_BYTES);
  let fd: number | undefined;
  try {
    fd = openSync(file, 'r');
    const n = readSync(fd, buf, 0, HEAD_BYTES, 0);
    const end = buf.subarray(0, n).indexOf(10);
    if (end < 0) return false;
    const head = JSON.parse(buf.subarray(0, end).toString('utf8')) as {
      type?: unknown;
      scenario?: { sessions?: unknown };
    };
    return head.type === 'run-start' && typeof head.scenario?.sessions === 'number' && head.scenario.sessions > 1;
  } catch {
    return false; // the reader names what is wrong with it
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
