// Memory of a process tree: the PSS (proportional set size: shared pages split among their users, so a tree's sum is
// what it costs the machine) of a process and every descendant, read from /proc (smaps_rollup). For benches only.
import { readdirSync, readFileSync } from 'node:fs';
import { readProcStat } from '../harness/core/proc.js';

/** The PSS of `pid` and its descendants, in bytes (processes that ended while being read count 0). */
export function treePssBytes(pid: number): number {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = readProcStat(entry);
    if (stat === null) continue;
    children.set(stat.ppid, [...(children.get(stat.ppid) ?? []), Number(entry)]);
  }
  let bytes = 0;
  for (const todo = [pid]; todo.length > 0;) {
    const p = todo.pop()!;
    todo.push(...(children.get(p) ?? []));
    try {
      const pss = /^Pss:\s+(\d+) kB/m.exec(readFileSync(`/proc/${p}/smaps_rollup`, 'utf8'));
      bytes += Number(pss?.[1] ?? 0) * 1024;
    } catch {
      // gone, or a kernel thread: nothing to count
    }
  }
  return bytes;
}
