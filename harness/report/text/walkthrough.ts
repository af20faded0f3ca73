// summary.md: the walkthrough of one run in Markdown, written from the report model; data strings are Markdown-escaped.
// It leads with the story (verdict, the gates that did not pass, what to do next), as the page's first screen does.
import { reportDateBasis } from '../../analysis/report-date.js';
import { escapeMarkdown as md } from '../escape.js';
import { fmtGateVerdict, GATE_MD_HEADERS, gateMarkdownCells } from './gate-format.js';
import { fmtMs, fmtQuantile } from './format.js';
import type { ReportModel } from '../model.js';
import type { RenderedChart } from '../charts/chart-spec.js';
import { sinceLastMarkdown } from './since-last.js';
import type { DurabilityRow } from '../../analysis/durability.js';
import { durabilityLines, plainKillRows } from './durability.js';
import { effectsMarkdown } from './effects.js';
import { sessionsMarkdown } from './sessions.js';
import { hostCrashMarkdown } from './host-crashes.js';
import { checkpointStormMarkdown } from './checkpoint-storms.js';
import { memoryPressureMarkdown } from './memory-pressure.js';
import { guestStateMatrix } from '../guest-state.js';
import { storyMarkdown } from './story.js';
import { anytimeSection } from './anytime-format.js';

/** The guest-state matrix as a table (nothing when no resume was examined). */
function guestMatrixMarkdown(model: ReportModel): string[] {
  const m = guestStateMatrix(model.summary.guestState);
  return m.rows.length === 0
    ? []
    : [
        ...table(
          m.header,
          m.rows.map((r) => r.map(md)),
        ),
        '',
      ];
}

function table(header: readonly string[], rows: ReadonlyArray<readonly string[]>): string[] {
  return [
    `| ${header.join(' | ')} |`,
    `|${header.map(() => ' --- ').join('|')}|`,
    ...rows.map((r) => `| ${r.join(' | ')} |`),
  ];
}

function bullets(items: readonly string[]): string[] {
  return items.map((item) => `- ${md(item)}`);
}

/** The indeterminate-cycles section (empty when every cycle was judged). */
function indeterminateSection(u: ReportModel['indeterminate']): string[] {
  if (u.lines.length === 0) return [];
  return [
    '## Indeterminate cycles',
    '',
    "Cycles the harness or the machine could not judge (a host hung or died, a full disk, a held lock): like Jepsen's `:info`, they count in no success rate and are no consistency claim.",
    '',
    ...(u.warning ? [`**Warning: ${md(u.warning)}**`, ''] : []),
    ...bullets(u.lines),
    '',
  ];
}

/** The source runs of a merged run (empty for a single run). */
function sourcesSection(sources: ReportModel['sources']): string[] {
  if (sources.rows.length === 0) return [];
  return [
    '## Source runs',
    '',
    'This run merges the runs below (`soak merge`); machines are named by CPU, cores, kernel and a short hash of them.',
    '',
    ...table(
      sources.header,
      sources.rows.map((r) => r.map((c) => md(c))),
    ),
    '',
  ];
}

/** Render summary.md; `charts` are listed with their SVG and spec file names. */
export function renderWalkthrough(
  model: ReportModel,
  charts: readonly Pick<RenderedChart, 'name' | 'title'>[],
  durability: readonly DurabilityRow[] = [],
): string {
  const s = model.summary;
  const u = model.indeterminate;
  const lines: string[] = [
    `**${md(model.provenance)}**`,
    '',
    ...(model.saturation ? [`> **Warning: ${md(model.saturation)}**`, ''] : []),
    ...(u.notice ? [`**${md(u.notice)}**`, ''] : []),
    `# Soak report: ${md(s.scenario)}, ${md(s.date)}`,
    '',
    `**${md(model.verdict.headline)}.** ${md(model.scope)} ${md(model.verdict.detail)}`,
    '',
    ...storyMarkdown(model),
    ...table(
      [`Date (${reportDateBasis(s.date, s.seedKey)})`, 'Scenario', 'Target', 'Cycles (n)', 'Seed', 'Run'],
      [[md(s.date), md(s.scenario), md(s.target), String(s.cycles.total), String(s.seed), md(s.runId)]],
    ),
    '',
    '## What was measured',
    '',
    ...bullets(model.findings),
    '',
    ...indeterminateSection(u),
    '## Gates',
    '',
  ];
  if (model.gates.length === 0) lines.push('No gate was judged for this report.');
  else {
    lines.push(
      ...table(
        [...GATE_MD_HEADERS, 'Verdict', 'Note'],
        model.gates.map((g) => [
          ...gateMarkdownCells(g),
          g.verdict === 'pass'
            ? md(fmtGateVerdict(g))
            : g.verdict === 'fail'
              ? `**${md(fmtGateVerdict(g))}**`
              : `*${md(fmtGateVerdict(g))}*`,
          md(g.note),
        ]),
      ),
      '',
      '### How the gates are judged',
      '',
      ...bullets(model.gateRules),
      ...(model.gates.some((g) => g.anytime) ? ['', ...anytimeSection(model.gates).slice(0, -1)] : []),
    );
    const described = model.gates.filter((g) => g.description !== '');
    if (described.length > 0)
      lines.push(
        '',
        '### What each gate checks',
        '',
        ...described.map((g) => `- **${g.id}. ${md(g.title)}**: ${md(g.description)}`),
      );
  }
  lines.push('', ...sinceLastMarkdown(model.sinceLast));
  lines.push(
    '## Downtime quantiles',
    '',
    'Kill to first verified heartbeat; 95% intervals from order statistics (distribution-free).',
    '',
  );
  lines.push(
    ...table(
      ['Quantile', 'Value', '95% CI', 'n'],
      model.quantiles.map((q) => [
        fmtQuantile(q.q),
        fmtMs(q.value),
        q.n === 0
          ? 'n/a'
          : `${q.lo === null ? '(below sample)' : fmtMs(q.lo)} – ${q.hi === null ? '(above sample max)' : fmtMs(q.hi)}`,
        String(q.n),
      ]),
    ),
    '',
    `Max ${fmtMs(s.downtimeMs.max)}, mean ${fmtMs(s.downtimeMs.mean)} (n = ${s.downtimeMs.n}).`,
    '',
    '## Tested environment',
    '',
    ...table(
      ['', ''],
      model.environment.map(([label, value]) => [md(label), md(value)]),
    ),
    '',
    ...sourcesSection(model.sources),
    '## Durability limits',
    '',
    ...bullets(model.durability),
    '',
    '### Guest state',
    '',
    ...bullets(model.guestState),
    '',
    ...guestMatrixMarkdown(model),
    ...durabilityLines(durability.length > 0 ? durability : plainKillRows(s.cycles)),
    ...effectsMarkdown(s.effects, md),
    ...sessionsMarkdown(s.sessions, md),
    ...hostCrashMarkdown(s.hostCrashes, md),
    ...checkpointStormMarkdown(s.checkpointStorms, md),
    ...memoryPressureMarkdown(s.memoryPressure, md),
    '## Scope and limitations',
    '',
    ...bullets(model.limitations),
    '',
    '## Files',
    '',
    '- `index.html`: this walkthrough with charts (static SVG, works offline)',
    '- `summary.json`: machine-readable summary and gate results',
    '- `cycles.csv`: one row per cycle',
    ...charts.map((c) => `- \`charts/${c.name}.svg\` (spec: \`charts/${c.name}.vl.json\`): ${md(c.title)}`),
    '',
  );
  return lines.join('\n');
}
