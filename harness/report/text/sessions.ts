// The report's "Sessions" section for a run of several sessions at once (issue 36): one row per session (its seed,
// cycles, failures, kill-and-resume rate with its Wilson 95% interval, violations, dedup) and the store's dedup pooled
// over every session beside the sessions' mean; summary.md and index.html draw the same rows. Absent for one session.
import type { SessionsSummary } from '../../analysis/summary.js';
import { fmtBytes, fmtNum, fmtPctInterval } from './format.js';

/** The section as both formats draw it: a lead sentence, a header and rows of plain text, and the failures' samples. */
export interface SessionsSection {
  lead: string;
  header: string[];
  rows: string[][];
  failures: string[];
}

const ratio = (r: number | null): string => (r === null ? 'n/a' : `${fmtNum(r)}x`);

/** The section for `s`, or null for a run of one session. */
export function sessionsSection(s: SessionsSummary | undefined): SessionsSection | null {
  if (s === undefined) return null;
  const header = ['Session', 'Seed', 'Cycles', 'Resumed', 'Failed', 'Indeterminate', 'Kill-resume (95%)'];
  const rows = s.rows.map((r) => [
    String(r.session),
    String(r.seed),
    String(r.cycles.total),
    String(r.cycles.resumed),
    String(r.cycles.failed),
    String(r.cycles.indeterminate),
    `${r.killResume.successes}/${r.killResume.trials} (${fmtPctInterval(r.killResume.wilson95)})`,
    String(r.violations),
    `${fmtBytes(r.dedup.logicalBytes)} / ${fmtBytes(r.dedup.storedBytes)} = ${ratio(r.dedup.ratio)}`,
  ]);
  const failures = s.rows.flatMap((r) => r.violationSamples.slice(0, 3).map((v) => `session ${r.session}: ${v}`));
  const d = s.dedup;
  const apart =
    d.apartBytes === null
      ? ''
      : ` The same checkpoints in a store per session would hold ${fmtBytes(d.apartBytes)}, a dedup of ${ratio(d.apartRatio)} (each session's needed chunks counted once per session): sharing one store kept ${ratio(d.sharedSaving)} fewer bytes.`;
  const lead = `${s.count} sessions ran at once on one host, each with its own seeded kill plan, into one shared store. Dedup over the whole store: ${ratio(d.pooledRatio)}.${apart} The sessions' mean: ${ratio(d.meanSessionRatio)} (a session's stored bytes are what it added to the shared store). Each gate was judged pooled and in each session: a session that fails one on its own fails the run. A session's cycles are not independent of each other, so a pooled rate is judged on the Wilson interval at an effective n (the variance between sessions, as a design effect, and Student's t for ${s.count} sessions: Korn & Graubard 1998), never at more than its trials; the intervals of times (downtime, pauses) treat cycles as independent.`;
  return { lead, header: [...header, 'Violations', 'Logical / stored bytes'], rows, failures };
}

/** The section in summary.md (nothing for a run of one session). */
export function sessionsMarkdown(s: SessionsSummary | undefined, md: (x: string) => string): string[] {
  const sec = sessionsSection(s);
  if (sec === null) return [];
  return [
    '## Sessions',
    '',
    md(sec.lead),
    '',
    `| ${sec.header.map(md).join(' | ')} |`,
    `|${sec.header.map(() => ' --- ').join('|')}|`,
    ...sec.rows.map((r) => `| ${r.map(md).join(' | ')} |`),
    '',
    ...(sec.failures.length > 0 ? [...sec.failures.map((f) => `- ${md(f)}`), ''] : []),
  ];
}
