// The report's "Memory pressure" section (issue 36): how many squeezes, in how many the kernel's OOM killer fired, the
// sessions it picked, the first limit to the kill as p50/p95/max with n, and how the sessions it spared were counted;
// summary.md and index.html draw the same lines. Absent when the run journaled no squeeze.
import type { MemoryPressureSummary } from '../../analysis/memory-pressure-tally.js';
import { fmtMs } from './format.js';

/** The section's paragraphs as plain text (the first the lead), or null when the run journaled no squeeze. */
export function memoryPressureLines(m: MemoryPressureSummary | undefined): string[] | null {
  if (m === undefined) return null;
  const took = m.sessions.min === m.sessions.max ? `${m.sessions.max}` : `${m.sessions.min} to ${m.sessions.max}`;
  const picked = Object.entries(m.bySession)
    .sort(([a], [b]) => a.localeCompare(b, 'en', { numeric: true }))
    .map(([s, n]) => (s === 'none' ? `a process of no session ${n}x` : `session ${s} ${n}x`))
    .join(', ');
  const lead = `${m.squeezes} memory squeeze${m.squeezes === 1 ? '' : 's'} (${took} sessions' hosts in one memory cgroup, its limit lowered to its usage until the kernel's OOM killer fired): it fired in ${m.fired} of ${m.squeezes}; the kernel picked ${m.victims} process${m.victims === 1 ? '' : 'es'}${picked === '' ? '' : ` (${picked})`}. Each picked session resumed and was judged as a memory-pressure trial; the sessions it spared took their own planned SIGKILL, counted as process kills.`;
  const k = m.killMs;
  const time =
    k === null
      ? "Time from the first limit to the OOM kill: the OOM killer never fired, so none is measured (those cycles are the harness's, indeterminate)."
      : `Time from the first limit to the OOM kill: p50 ${fmtMs(k.p50)}, p95 ${fmtMs(k.p95)}, max ${fmtMs(k.max)} (n = ${k.n} squeeze${k.n === 1 ? '' : 's'}; measured once, on one host).`;
  const missed =
    m.fired < m.squeezes
      ? [
          `${m.squeezes - m.fired} squeeze(s) with no OOM kill within the bound: their cycles are the harness's (cause memory-pressure), never the runtime's.`,
        ]
      : [];
  return [lead, time, ...missed];
}

/** The section in summary.md (nothing without squeezes). */
export function memoryPressureMarkdown(m: MemoryPressureSummary | undefined, md: (x: string) => string): string[] {
  const lines = memoryPressureLines(m);
  if (lines === null) return [];
  return ['## Memory pressure', '', ...lines.flatMap((l) => [md(l), ''])];
}
