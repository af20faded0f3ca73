// A bench's page (knee, growth): paragraphs, line charts (vega-lite rendered to SVG by the report's renderer) and
// tables, as Markdown and HTML. Every text escaped by the report's one home of escaping; the page has no script.
import type { TopLevelSpec } from 'vega-lite';
import { renderSvg } from '../harness/report/charts/render.js';
import { CHART_CONFIG, CHART_SIZE } from '../harness/report/charts/chart-theme.js';
import { escapeHtml, escapeMarkdown } from '../harness/report/escape.js';

/** One point of a line chart: its x, its series (one line per series) and its y (null: not measured, not drawn). */
export interface ChartPoint {
  x: number;
  series: string;
  y: number | null;
}

/** A line chart: y against x, a line per series; `logX` draws x on a log-2 scale with the points' x as ticks. */
export interface LineChart {
  title: string;
  xTitle: string;
  yTitle: string;
  seriesTitle: string;
  points: readonly ChartPoint[];
  logX?: boolean;
  caption: string;
}

function chartSpec(c: LineChart): TopLevelSpec {
  const xs = [...new Set(c.points.map((p) => p.x))];
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v5.json',
    ...CHART_SIZE,
    config: CHART_CONFIG,
    title: c.title,
    data: { values: c.points.filter((p) => p.y !== null).map((p) => ({ ...p })) },
    mark: { type: 'line', point: true },
    encoding: {
      x: {
        field: 'x',
        type: 'quantitative',
        ...(c.logX === true ? { scale: { type: 'log', base: 2 } } : {}),
        axis: { values: xs, format: 'd' },
        title: c.xTitle,
      },
      y: { field: 'y', type: 'quantitative', title: c.yTitle },
      color: { field: 'series', type: 'nominal', title: c.seriesTitle },
    },
  };
}

/** One table: its heading (none: the page's only table), header cells and rows of cells. */
export interface PageTable {
  heading?: string;
  header: readonly string[];
  rows: ReadonlyArray<readonly string[]>;
  /** Said instead of the table when it has no rows (an axis the run skipped). */
  empty?: string;
}

/** A page: its title, paragraphs (the first ones plain, `strong` ones bold), charts, then its tables. */
export interface BenchPage {
  title: string;
  paragraphs: readonly string[];
  strong?: readonly string[];
  charts: readonly LineChart[];
  tables: readonly PageTable[];
  /** The SVG ids' prefix (one per bench). */
  id: string;
}

const mdTable = (t: PageTable): string[] => [
  ...(t.heading === undefined ? [] : [`## ${escapeMarkdown(t.heading)}`, '']),
  ...(t.rows.length === 0 && t.empty !== undefined ? [escapeMarkdown(t.empty), ''] : mdRows(t)),
];
const mdRows = (t: PageTable): string[] => [
  `| ${t.header.map(escapeMarkdown).join(' | ')} |`,
  `|${t.header.map(() => ' --- ').join('|')}|`,
  ...t.rows.map((r) => `| ${r.map(escapeMarkdown).join(' | ')} |`),
  '',
];
const htmlTable = (t: PageTable): string[] => [
  ...(t.heading === undefined ? [] : [`<h2>${escapeHtml(t.heading)}</h2>`]),
  ...(t.rows.length === 0 && t.empty !== undefined ? [`<p>${escapeHtml(t.empty)}</p>`] : htmlRows(t)),
];
const htmlRows = (t: PageTable): string[] => [
  '<table><thead><tr>',
  ...t.header.map((h) => `<th>${escapeHtml(h)}</th>`),
  '</tr></thead><tbody>',
  ...t.rows.map((r) => `<tr>${r.map((c) => `<td>${escapeHtml(c)}</td>`).join('')}</tr>`),
  '</tbody></table>',
];

/** The page as Markdown (no charts: the tables say it) and as HTML with each chart as an inline SVG. */
export async function benchPage(p: BenchPage): Promise<{ markdown: string; html: string }> {
  const strong = p.strong ?? [];
  const md = [
    `# ${escapeMarkdown(p.title)}`,
    '',
    ...[...p.paragraphs, ...strong].flatMap((t) => [escapeMarkdown(t), '']),
    ...p.tables.flatMap(mdTable),
  ].join('\n');
  const figures: string[] = [];
  for (const [i, c] of p.charts.entries())
    figures.push(
      `<figure>${await renderSvg(chartSpec(c), `${p.id}${i}`)}<figcaption>${escapeHtml(c.caption)}</figcaption></figure>`,
    );
  const html = [
    '<!doctype html><html lang="en"><head><meta charset="utf-8">',
    `<title>${escapeHtml(p.title)}</title></head><body>`,
    `<h1>${escapeHtml(p.title)}</h1>`,
    ...p.paragraphs.map((t) => `<p>${escapeHtml(t)}</p>`),
    ...strong.map((t) => `<p><strong>${escapeHtml(t)}</strong></p>`),
    ...figures,
    ...p.tables.flatMap(htmlTable),
    '</body></html>',
    '',
  ].join('\n');
  return { markdown: md, html };
}
