// reports/index.html: every dated report, newest first, with one trend chart per scenario and target (negative controls apart).
import { escapeHtml as h } from '../escape.js';
import { fmtMs, fmtPct } from '../text/format.js';
import { htmlDocument } from './page.js';
import { renderSvg } from '../charts/render.js';
import type { ReportEntry } from '../report-list.js';
import { trendSeriesSpec, type TrendSeries } from '../charts/trend-chart.js';
import { storedVerdictWord, trendSeries } from '../trend-series.js';
import { slug } from '../../core/slug.js';

function row(e: ReportEntry): string {
  const rate = e.successes !== null && e.trials !== null ? `${e.successes} / ${e.trials}` : 'n/a';
  const pill = e.verdict === 'unreadable' ? 'none' : e.verdict;
  const p95 = e.p95Ms === null ? 'n/a' : `${fmtMs(e.p95Ms)} (n = ${e.downtimeN ?? '?'})`;
  return (
    `<tr data-report="${h(e.dir)}"><td class="num" data-label="Date (UTC)">${h(e.date)}</td><td class="wide" data-label="Scenario"><a href="${h(encodeURIComponent(e.dir))}/index.html">${h(e.scenario)}</a><br><code>${h(e.dir)}</code></td>` +
    `<td data-label="Target">${h(e.target)}</td><td class="num" data-label="Cycles">${h(e.cycles ?? 'n/a')}</td><td class="num" data-label="Kill-and-resume">${h(rate)}</td><td class="num" data-label="Wilson lower">${h(fmtPct(e.wilsonLo, 'down'))}</td>` +
    `<td class="num" data-col="p95" data-label="Downtime p95 (n)">${h(p95)}</td><td data-col="verdict" data-label="Stored verdict"><span class="pill ${h(pill)}">${h(storedVerdictWord(e.verdict))}</span></td></tr>`
  );
}

async function figure(series: TrendSeries): Promise<string> {
  const name = `${series.scenario} on ${series.target}`;
  const svg = await renderSvg(trendSeriesSpec(series), `trend-${slug(name)}`);
  return `<figure class="chart wide" data-chart="trend" data-series="${h(name)}">
${svg}
<figcaption>${h(name)}: downtime p95 and the kill-and-resume Wilson 95% lower bound, one point per report at its night (the report's date; a second report of one night stands beside it), n beside each point, coloured by the verdict that report stored.</figcaption>
</figure>`;
}

/** Render the index page for `entries` (already sorted newest first). */
export async function renderIndexPage(entries: readonly ReportEntry[]): Promise<string> {
  const series = trendSeries(entries);
  const figures = async (list: TrendSeries[]): Promise<string> => (await Promise.all(list.map(figure))).join('\n');
  const trends = await figures(series.filter((s) => !s.negativeControl));
  const controls = series.filter((s) => s.negativeControl);
  const controlSection =
    controls.length === 0
      ? ''
      : `<h2>Negative controls</h2>
<p>Runs with a planted fault: they pass when the checker catches it, so their success rates sit near 0% by design and are kept off the other charts.</p>
<div class="charts" id="negative-controls">${await figures(controls)}</div>
`;
  const body = `<header>
<h1>Kill-and-resume soak reports</h1>
<p class="meta"><span>${h(entries.length)} dated report${entries.length === 1 ? '' : 's'}</span><span>newest first</span></p>
</header>
<h2>Trend</h2>
<div class="charts" id="trends">
${trends || '<p>No reports yet.</p>'}
</div>
<p>Each point is one run: read it with that report's scope and limitations.</p>
${controlSection}<h2>Reports</h2>
<table class="reports cards-narrow"><thead><tr><th>Date (UTC)</th><th>Scenario</th><th>Target</th><th>Cycles</th><th>Kill-and-resume</th><th>Wilson lower</th><th>Downtime p95 (n)</th><th>Stored verdict</th></tr></thead>
<tbody>${entries.map(row).join('\n')}</tbody></table>`;
  return htmlDocument('Kill-and-resume soak reports', body);
}
