// The "Since last report" section of summary.md: the baseline's identity, each gate then and now, the downtime test.
import { escapeMarkdown as md } from '../escape.js';
import { VERDICT_WORD } from '../../gates/verdict.js';
import type { SinceLast } from '../baseline/since-last.js';

/** The section's Markdown lines (none without a baseline). */
export function sinceLastMarkdown(s: SinceLast | undefined): string[] {
  if (s === undefined) return [];
  const b = s.baseline;
  const verdict = b.verdict === 'none' ? 'no gates' : VERDICT_WORD[b.verdict];
  return [
    '## Since last report',
    '',
    `Compared with ${md(b.dir)}: run ${md(b.runId)} of ${md(b.date)}, stored verdict **${md(verdict)}**.`,
    '',
    '| # | Gate | Then | Now | Change |',
    '| --- | --- | --- | --- | --- |',
    ...s.gates.map((g) => `| ${g.id} | ${md(g.title)} | ${md(g.then)} | ${md(g.now)} | ${md(g.change)} |`),
    '',
    md(s.downtimeLine),
    '',
  ];
}
