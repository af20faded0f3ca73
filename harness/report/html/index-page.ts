// reports/index.html: every dated report, newest first, with a trend chart (downtime p95, kill-and-resume lower bound).
import { escapeHtml as h } from '../escape.js';
import { fmtMs, fmtPct } from '../text/format.js';
import { htmlDocument } from './page.js';
import { renderSvg } from '../charts/render.js';
import type { ReportEntry } from '../report-list.js';
import { VERDICT_WORD } from '../../gates/verdict.js';
import { trendSpec } from '../charts/trend-chart.js';

const VERDICT_TEXT: Record<ReportEntry['verdict'], string> = {
  ...VERDICT_WORD,
  none: 'no gates',
  unreadable: 'unreadable',
};

function row(e: ReportEntry): string {
  const rate = e.successes !== null && e.trials !== null ? `${e.successes} / ${e.trials}` : 'n/a';
  const pill = e.verdict === 'unreadable' ? 'none' : e.verdict;
  return (
    `<tr><td class="num">${h(e.date)}</td><td><a href="${h(encodeURIComponent(e.dir))}/index.html">${h(e.scenario)}</a><br><code>${h(e.dir)}</code></td>` +
    `<td>${h(e.target)}</td><td class="num">${h(e.cycles ?? 'n/a')}</td><td class="num">${h(rate)}</td><td class="num">${h(fmtPct(e.wilsonLo, 'down'))}</td>` +
    `<td class="num">${h(fmtMs(e.p95Ms))}</td><td><span class="pill ${h(pill)}">${h(VERDICT_TEXT[e.verdict])}</span></td></tr>`
  );
}

/** Render the index page for `entries` (already sorted newest first). */
export async function renderIndexPage(entries: readonly ReportEntry[]): Promise<string> {
  const points = [...entries]
    .reverse()
    .map((e) => ({ date: e.date, report: e.dir, p95Ms: e.p95Ms, wilsonLo: e.wilsonLo }));
  const trend = entries.length > 0 ? await renderSvg(trendSpec(points), 'trend') : '';
  const body = `<header>
<h1>Kill-and-resume soak reports</h1>
<p class="meta"><span>${h(entries.length)} dated report${entries.length === 1 ? '' : 's'}</span><span>newest first</span></p>
</header>
<h2>Trend</h2>
<div class="charts"><figure class="chart wide" data-chart="trend">
${trend || '<p>No reports yet.</p>'}
<figcaption>Downtime p95 (ms) and the kill-and-resume Wilson 95% lower bound, one point per report. Each point is one run: read it with that report's scope and limitations.</figcaption>
</figure></div>
<h2>Reports</h2>
<table><thead><tr><th>Date (UTC)</th><th>Scenario</th><th>Target</th><th>Cycles</th><th>Kill-and-resume</th><th>Wilson lower</th><th>Downtime p95</th><th>Verdict</th></tr></thead>
<tbody>${entries.map(row).join('\n')}</tbody></table>`;
  return htmlDocument('Kill-and-resume soak reports', body);
}
