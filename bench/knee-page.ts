// The knee's page (bench/knee.ts): the table, the largest N at which every gate passed (with its kill-and-resume
// interval), and the chart of downtime p50/p95 against N (vega-lite, rendered to SVG by the report's renderer). Every
// text escaped by the report's one home of escaping; the page has no script.
import type { TopLevelSpec } from 'vega-lite';
import { renderSvg } from '../harness/report/charts/render.js';
import { CHART_CONFIG, CHART_SIZE } from '../harness/report/charts/chart-theme.js';
import { escapeHtml, escapeMarkdown } from '../harness/report/escape.js';

/** One N's figures. */
export interface KneeRow {
  n: number;
  verdict: string;
  /** Gates that did not pass, by verdict: "fail 4", "insufficient 1, 2". */
  failing: string[];
  cycles: number;
  /** Cycles the checker failed (their run folder is kept). */
  failed: number;
  killResume: string;
  killResumeInterval: [number, number] | null;
  killResumeNote: string;
  downP50: number | null;
  downP95: number | null;
  downP95Interval: [number, number] | null;
  pauseP95: number | null;
  checkpointsPerS: number;
  logicalMBps: number;
  storedKBps: number;
  dedup: number | null;
  apartDedup: number | null;
  peakPssMiB: number;
  sessionsPerGiB: number | null;
  load: { before: number; after: number; p50: number | null };
  otherCpuP50: number | null;
  seconds: number;
}

export interface KneeInput {
  target: string;
  scenario: string;
  cycles: number;
  cores: number;
  rows: readonly KneeRow[];
}

const pct = (x: number): string => `${(100 * x).toFixed(1)}%`;
const num = (x: number | null, d = 0): string => (x === null ? '-' : x.toFixed(d));

/** The largest N whose verdict is pass with no smaller N failing, as a sentence (the knee's answer). */
export function largestPassing(rows: readonly KneeRow[]): string {
  const sorted = [...rows].sort((a, b) => a.n - b.n);
  const firstFail = sorted.find((r) => r.verdict === 'fail');
  const passing = sorted.filter((r) => r.verdict === 'pass' && (firstFail === undefined || r.n < firstFail.n));
  const best = passing.at(-1);
  const failed = firstFail ? ` At N = ${firstFail.n}: ${firstFail.failing.join('; ')}.` : '';
  if (best === undefined)
    return `No N passed every gate (verdicts: ${sorted.map((r) => `N ${r.n} ${r.verdict}`).join(', ')}).${failed}`;
  const iv = best.killResumeInterval;
  const down = best.downP95Interval;
  return (
    `Largest N at which every gate passed: ${best.n} (kill-and-resume ${best.killResume}, 95% interval ` +
    `${iv ? `${pct(iv[0])}-${pct(iv[1])}` : '-'}; downtime p95 ${num(best.downP95)} ms, 95% interval ` +
    `${down ? `${num(down[0])}-${num(down[1])} ms` : '-'}).${failed}`
  );
}

function chartSpec(rows: readonly KneeRow[]): TopLevelSpec {
  const values = rows.flatMap((r) => [
    { n: r.n, stat: 'p50', ms: r.downP50 },
    { n: r.n, stat: 'p95', ms: r.downP95 },
  ]);
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v5.json',
    ...CHART_SIZE,
    config: CHART_CONFIG,
    title: 'Downtime against sessions at once',
    data: { values: values.filter((v) => v.ms !== null) },
    mark: { type: 'line', point: true },
    encoding: {
      x: {
        field: 'n',
        type: 'quantitative',
        scale: { type: 'log', base: 2 },
        axis: { values: rows.map((r) => r.n), format: 'd' },
        title: 'sessions at once (N)',
      },
      y: { field: 'ms', type: 'quantitative', title: 'downtime (ms)' },
      color: { field: 'stat', type: 'nominal', title: 'quantile' },
    },
  };
}

const HEADER = [
  'N',
  'Verdict',
  'Kill-resume',
  'Downtime p50 / p95 ms',
  'Pause p95 ms',
  'Checkpoints/s',
  'Logical MB/s',
  'Stored KB/s',
  'Dedup shared / store per session',
  'Peak PSS MiB',
  'Sessions per GiB',
  'Load p50',
  'Other CPU %',
];

function cells(r: KneeRow): string[] {
  return [
    String(r.n),
    r.verdict + (r.failing.length > 0 ? ` (${r.failing.join('; ')})` : ''),
    r.killResume,
    `${num(r.downP50)} / ${num(r.downP95)}`,
    num(r.pauseP95, 1),
    r.checkpointsPerS.toFixed(1),
    r.logicalMBps.toFixed(1),
    r.storedKBps.toFixed(1),
    `${num(r.dedup, 1)} / ${num(r.apartDedup, 1)}`,
    r.peakPssMiB.toFixed(0),
    num(r.sessionsPerGiB, 1),
    num(r.load.p50, 1),
    num(r.otherCpuP50),
  ];
}

/** The page as Markdown and HTML, and the largest-N sentence. */
export async function kneePage(k: KneeInput): Promise<{ markdown: string; html: string; largest: string }> {
  const largest = largestPassing(k.rows);
  const scope = `${k.target} target, scenario ${k.scenario}, ${k.cycles} cycles per session, ${k.cores} cores. Each N is one soak run with --strict-timing: the sessions' own load is what is measured, so a timing gate is judged as measured; "other CPU" is the share of CPU processes outside the run took (outside load). A pooled rate is judged at its effective n (sessions are clusters). Peak PSS is the runner's whole process tree.`;
  const md = [
    `# The knee: ${escapeMarkdown(k.target)}`,
    '',
    escapeMarkdown(scope),
    '',
    escapeMarkdown(largest),
    '',
    `| ${HEADER.join(' | ')} |`,
    `|${HEADER.map(() => ' --- ').join('|')}|`,
    ...k.rows.map((r) => `| ${cells(r).map(escapeMarkdown).join(' | ')} |`),
    '',
  ].join('\n');
  const svg = await renderSvg(chartSpec(k.rows), 'knee');
  const html = [
    '<!doctype html><html lang="en"><head><meta charset="utf-8">',
    `<title>The knee: ${escapeHtml(k.target)}</title></head><body>`,
    `<h1>The knee: ${escapeHtml(k.target)}</h1>`,
    `<p>${escapeHtml(scope)}</p>`,
    `<p><strong>${escapeHtml(largest)}</strong></p>`,
    `<figure>${svg}<figcaption>Downtime p50 and p95 against N (log scale)</figcaption></figure>`,
    '<table><thead><tr>',
    ...HEADER.map((h) => `<th>${escapeHtml(h)}</th>`),
    '</tr></thead><tbody>',
    ...k.rows.map(
      (r) =>
        `<tr>${cells(r)
          .map((c) => `<td>${escapeHtml(c)}</td>`)
          .join('')}</tr>`,
    ),
    '</tbody></table></body></html>',
    '',
  ].join('\n');
  return { markdown: md, html, largest };
}
