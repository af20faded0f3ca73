// The CI job summary: GitHub-flavoured Markdown sized for $GITHUB_STEP_SUMMARY (verdict, a warning when the machine
// was saturated, what was measured with n and intervals, the gate table, where the dated report is). Data strings are
// Markdown-escaped; the whole stays < 1 MiB.
import { escapeMarkdown as md } from '../escape.js';
import type { ReportModel } from '../model.js';
import { fmtGateVerdict, GATE_MD_HEADERS, gateMarkdownCells } from './gate-format.js';

/** GitHub refuses a step summary over 1 MiB; stay well below it (other steps may append to the same file). */
export const STEP_SUMMARY_MAX_BYTES = 512 * 1024;

/** The icon beside each verdict level, so the table reads at a glance. */
const ICON: Record<ReportModel['verdict']['level'], string> = {
  pass: '✅',
  fail: '❌',
  inconclusive: '⚠️',
  insufficient: '⚠️',
  'adapter-fault': '🛑',
  none: '➖',
};

function row(cells: readonly string[]): string {
  return `| ${cells.join(' | ')} |`;
}

/** Render the summary; `reportDir` is the dated report's folder (null: none written). */
export function renderStepSummary(model: ReportModel, reportDir: string | null): string {
  const s = model.summary;
  const v = model.verdict;
  const lines = [
    `## ${ICON[v.level]} keepstate-soak: ${md(s.scenario)} (${md(s.date)}): ${md(v.headline)}`,
    '',
    md(v.detail),
    '',
    ...(model.saturation !== null ? ['> [!WARNING]', `> **${md(model.saturation)}**`, ''] : []),
    row(['Run', 'Target', 'Cycles (n)', 'Seed', 'Status']),
    row(['---', '---', '---', '---', '---']),
    row([
      `\`${s.runId.replace(/`/g, "'")}\``,
      md(s.target),
      String(s.cycles.total),
      `${s.seed}${s.seedKey !== undefined ? ` (key ${md(s.seedKey)})` : ''}`,
      md(s.runStatus?.status ?? 'unknown'),
    ]),
    '',
    '### What was measured',
    '',
    ...model.findings.map((f) => `- ${md(f)}`),
    '',
    '### Gates',
    '',
  ];
  if (model.gates.length === 0) lines.push('No gate was judged.');
  else
    lines.push(
      row(['', ...GATE_MD_HEADERS, 'Verdict']),
      row(['---', '---:', '---', '---', '---', '---', '---', '---:', '---']),
      ...model.gates.map((g) =>
        row([
          ICON[g.verdict],
          ...gateMarkdownCells(g),
          g.verdict === 'fail' ? `**${md(fmtGateVerdict(g))}**` : md(fmtGateVerdict(g)),
        ]),
      ),
    );
  lines.push(
    '',
    reportDir !== null ? `Dated report: \`${reportDir.replace(/`/g, "'")}\`` : 'No report was written.',
    '',
  );
  return capBytes(lines.join('\n'), STEP_SUMMARY_MAX_BYTES);
}

/** `text` cut to at most `max` UTF-8 bytes at a line end, saying so. */
function capBytes(text: string, max: number): string {
  if (Buffer.byteLength(text) <= max) return text;
  const note = '\n\n*(summary cut to fit the job summary; the dated report has everything)*\n';
  let cut = text.slice(0, max - note.length);
  while (Buffer.byteLength(cut) > max - note.length) cut = cut.slice(0, Math.floor(cut.length * 0.9));
  return `${cut.slice(0, Math.max(0, cut.lastIndexOf('\n')))}${note}`;
}
