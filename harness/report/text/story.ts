// The story summary.md leads with, as the page's first screen does: the gates that did not pass (the gate table's own
// cells, gate-format.ts) and what to do next. Data strings are Markdown-escaped.
import { visible } from '../../core/visible.js';
import { escapeMarkdown as md } from '../escape.js';
import type { ReportModel } from '../model.js';
import { storyGates, type StepPart } from '../next-steps.js';
import { fmtGateVerdict, GATE_MD_HEADERS, gateMarkdownCells } from './gate-format.js';

/** A command as a Markdown code span; one that a code span cannot hold (a backtick) as escaped text. */
function codeSpan(code: string): string {
  const text = visible(code);
  return text.includes('`') ? md(text) : `\`${text}\``;
}

/** A step's parts as Markdown: words escaped, commands as code spans. */
export function stepMarkdown(parts: readonly StepPart[]): string {
  return parts.map((p) => (typeof p === 'string' ? md(p) : codeSpan(p.code))).join('');
}

/** The lines: "## Did not pass" with a table of those gates (none for a negative control), then "## What to do next". */
export function storyMarkdown(model: ReportModel): string[] {
  const told = model.summary.negativeControl === true ? [] : storyGates(model.gates);
  const table =
    told.length === 0
      ? []
      : [
          '## Did not pass',
          '',
          `| ${[...GATE_MD_HEADERS, 'Verdict'].join(' | ')} |`,
          `|${[...GATE_MD_HEADERS, 'Verdict'].map(() => ' --- ').join('|')}|`,
          ...told.map((g) => `| ${[...gateMarkdownCells(g), `**${md(fmtGateVerdict(g))}**`].join(' | ')} |`),
          '',
        ];
  return [
    ...table,
    '## What to do next',
    '',
    ...model.nextSteps.map((s, i) => `${i + 1}. ${stepMarkdown(s.parts)}`),
    '',
  ];
}
