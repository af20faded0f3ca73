// The report's "Host crashes" section for a run of several sessions (issue 36): how many crashes took every session at
// one instant (the loop's kill spread), how many killed and brought back every one, and the time from the crash to the
// last session back as p50/p95/max with n; summary.md and index.html draw the same lines. Absent when none ran.
import type { HostCrashSummary } from '../../analysis/host-crash-tally.js';
import { fmtMs } from './format.js';

/** The section's paragraphs as plain text (the first the lead), or null when the run journaled no host crash. */
export function hostCrashLines(c: HostCrashSummary | undefined): string[] | null {
  if (c === undefined) return null;
  const took = c.sessions.min === c.sessions.max ? `${c.sessions.max}` : `${c.sessions.min} to ${c.sessions.max}`;
  const lead = `${c.crashes} host crash${c.crashes === 1 ? '' : 'es'}, each SIGKILLing every session's host in one loop (${took} sessions a crash; first to last kill at most ${fmtMs(c.spreadMaxMs)}), then resuming them all at once. Every session's host killed: ${c.everyKilled} of ${c.crashes}; every session back: ${c.everyBack} of ${c.crashes}.`;
  const b = c.lastBackMs;
  const back =
    b === null
      ? 'Time from the crash to the last session back: no crash brought every session back, so none is measured.'
      : `Time from the crash to the last session back (its first verified heartbeat): p50 ${fmtMs(b.p50)}, p95 ${fmtMs(b.p95)}, max ${fmtMs(b.max)} (n = ${b.n} crash${b.n === 1 ? '' : 'es'}; measured once, on one host).`;
  return [lead, back, ...c.incomplete.map((x) => `Not every session: ${x}.`)];
}

/** The section in summary.md (nothing without host crashes). */
export function hostCrashMarkdown(c: HostCrashSummary | undefined, md: (x: string) => string): string[] {
  const lines = hostCrashLines(c);
  if (lines === null) return [];
  return ['## Host crashes', '', ...lines.flatMap((l) => [md(l), ''])];
}
