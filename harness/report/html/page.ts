// index.html for one report: the first screen (verdict, gates that did not pass, next steps), key figures, gate table,
// inline SVG charts, environment, limits. No scripts.
import { reportDateBasis } from '../../analysis/report-date.js';
import type { RenderedChart } from '../charts/chart-spec.js';
import { escapeHtml as h } from '../escape.js';
import { fmtMs, fmtNum, fmtPct, fmtPctInterval } from '../text/format.js';
import type { ReportModel } from '../model.js';
import { nextStepsHtml, storyHtml, verdictBanner } from './first-screen.js';
import { gateRulesHtml, gateTableHtml } from './gate-table.js';
import { anytimeHtml } from './anytime-list.js';
import { PAGE_CSS } from './page-style.js';
import { sinceLastHtml } from './since-last.js';
import { effectsSection } from '../text/effects.js';
import { sessionsSection } from '../text/sessions.js';
import { hostCrashLines } from '../text/host-crashes.js';
import { checkpointStormLines } from '../text/checkpoint-storms.js';
import { memoryPressureLines } from '../text/memory-pressure.js';
import { guestStateMatrix } from '../guest-state.js';

/** Content-Security-Policy for report pages: no scripts, no network; inline styles only. */
export const REPORT_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:";

/** The document shell shared by the run page and the reports index (`body` must already be escaped HTML). */
export function htmlDocument(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${h(REPORT_CSP)}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${h(title)}</title>
<style>${PAGE_CSS}</style>
</head>
<body>
<main>
${body}
</main>
</body>
</html>
`;
}

function card(label: string, value: string, sub: string): string {
  return `<div class="card"><div class="label">${h(label)}</div><div class="value">${h(value)}</div><div class="sub">${h(sub)}</div></div>`;
}

function cards(model: ReportModel): string {
  const s = model.summary;
  const kr = s.killResume;
  const d = s.downtimeMs;
  const rate = kr.trials > 0 ? `${kr.successes} / ${kr.trials}` : 'n/a';
  return `<div class="cards">
${card('Kill-and-resume', rate, `Wilson 95%: ${fmtPctInterval(kr.wilson95)}`)}
${card('Downtime p50', fmtMs(d.p50), `n = ${d.n}`)}
${card('Downtime p95', fmtMs(d.p95), `max ${fmtMs(d.max)}, n = ${d.n}`)}
${card('Lost work per kill', s.lostSteps.max === null ? 'n/a' : `≤ ${fmtNum(s.lostSteps.max)} steps`, `mean ${fmtNum(s.lostSteps.mean)}, n = ${s.lostSteps.n}`)}
${card('Checker violations', String(s.violations), `${s.cycles.total} cycles`)}
${(s.adapterFaults?.count ?? 0) > 0 ? card('Adapter faults', String(s.adapterFaults!.count), 'exec adapter broke the protocol') : ''}
</div>`;
}

function quantileTable(model: ReportModel): string {
  const rows = model.quantiles.map(
    (q) =>
      `<tr><td>p${Math.round(q.q * 100)}</td><td class="num">${h(fmtMs(q.value))}</td>` +
      `<td class="num">${q.n === 0 ? 'n/a' : `${h(q.lo === null ? 'below sample' : fmtMs(q.lo))} – ${h(q.hi === null ? 'above sample max' : fmtMs(q.hi))}`}</td><td class="num">${h(q.n)}</td></tr>`,
  );
  return `<table><thead><tr><th>Quantile</th><th>Downtime</th><th>95% CI (order statistics)</th><th>n</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

function chartFigure(chart: RenderedChart): string {
  const wide = chart.name === 'downtime-per-cycle' || chart.name === 'success-rates' ? ' wide' : '';
  return `<figure class="chart${wide}" id="${h(`fig-${chart.name}`)}" data-chart="${h(chart.name)}">
${chart.svg}
<figcaption>${h(chart.caption)} <a href="${h(`charts/${chart.name}.vl.json`)}">Vega-Lite spec</a> · <a href="${h(`charts/${chart.name}.svg`)}">SVG</a></figcaption>
</figure>`;
}

function list(items: readonly string[]): string {
  return `<ul class="claims">${items.map((i) => `<li>${h(i)}</li>`).join('\n')}</ul>`;
}

/** The indeterminate-cycles section (empty when every cycle was judged). */
function indeterminateHtml(u: ReportModel['indeterminate']): string {
  if (u.lines.length === 0) return '';
  const warn = u.warning ? `<section class="banner insufficient"><strong>${h(u.warning)}</strong></section>\n` : '';
  return `<h2>Indeterminate cycles</h2>
<p>Cycles the harness or the machine could not judge (a host hung or died, a full disk, a held lock): they count in no success rate and are no consistency claim.</p>
${warn}${list(u.lines)}
`;
}

/** The source runs of a merged run (empty for a single run). */
function sourcesHtml(sources: ReportModel['sources']): string {
  if (sources.rows.length === 0) return '';
  const head = sources.header.map((c) => `<th>${h(c)}</th>`).join('');
  const rows = sources.rows.map((r) => `<tr>${r.map((c) => `<td class="wrap">${h(c)}</td>`).join('')}</tr>`).join('');
  return `<h2>Source runs</h2>
<p>This run merges the runs below (<code>soak merge</code>); machines are named by CPU, cores, kernel and a short hash of them.</p>
<div class="table-scroll"><table class="sources"><thead><tr>${head}</tr></thead><tbody>${rows}</tbody></table></div>
`;
}

/** The guest-state matrix of the run's examined resumes (nothing when none was). */
function guestMatrixHtml(model: ReportModel): string {
  const m = guestStateMatrix(model.summary.guestState);
  if (m.rows.length === 0) return '';
  const head = m.header.map((c) => `<th>${h(c)}</th>`).join('');
  const rows = m.rows.map((r) => `<tr>${r.map((c) => `<td>${h(c)}</td>`).join('')}</tr>`).join('');
  return `<div class="table-scroll"><table class="guest-state"><thead><tr>${head}</tr></thead><tbody>${rows}</tbody></table></div>\n`;
}

/** The "Sessions" section of a run of several sessions at once (report/text/sessions.ts draws it). */
function sessionsHtml(x: ReportModel['summary']['sessions']): string {
  const s = sessionsSection(x);
  if (s === null) return '';
  const cells = (r: string[], tag: string): string => r.map((c) => `<${tag}>${h(c)}</${tag}>`).join('');
  const table = `<table><thead><tr>${cells(s.header, 'th')}</tr></thead><tbody>${s.rows.map((r) => `<tr>${cells(r, 'td')}</tr>`).join('')}</tbody></table>\n`;
  return `<h2 id="sessions">Sessions</h2>\n<p>${h(s.lead)}</p>\n<div class="table-scroll">${table}</div>${s.failures.length > 0 ? list(s.failures) : ''}`;
}

/** The "Host crashes" section of a run of several sessions (report/text/host-crashes.ts draws it). */
function hostCrashHtml(x: ReportModel['summary']['hostCrashes']): string {
  const lines = hostCrashLines(x);
  return lines === null
    ? ''
    : `<h2 id="host-crashes">Host crashes</h2>\n${lines.map((l) => `<p>${h(l)}</p>`).join('\n')}\n`;
}

/** A section of plain lines (report/text/ draws them), or nothing when there are none. */
function linesHtml(id: string, title: string, lines: string[] | null): string {
  return lines === null ? '' : `<h2 id="${id}">${h(title)}</h2>\n${lines.map((l) => `<p>${h(l)}</p>`).join('\n')}\n`;
}

/** The "Checkpoint storms" section of a run of several sessions (report/text/checkpoint-storms.ts draws it). */
function stormHtml(x: ReportModel['summary']['checkpointStorms']): string {
  return linesHtml('checkpoint-storms', 'Checkpoint storms', checkpointStormLines(x));
}

/** The "Memory pressure" section (report/text/memory-pressure.ts draws it). */
function memoryPressureHtml(x: ReportModel['summary']['memoryPressure']): string {
  return linesHtml('memory-pressure', 'Memory pressure', memoryPressureLines(x));
}

/** The "External effects" section (report/text/effects.ts draws it). */
function effectsHtml(e: ReportModel['summary']['effects']): string {
  const s = effectsSection(e);
  const table =
    s.rows.length === 0
      ? ''
      : `<table><thead><tr>${s.header.map((c) => `<th>${h(c)}</th>`).join('')}</tr></thead><tbody>${s.rows.map((r) => `<tr>${r.map((c) => `<td>${h(c)}</td>`).join('')}</tr>`).join('')}</tbody></table>\n`;
  return `<h2 id="effects">External effects</h2>\n<p>${h(s.lead)}</p>\n${table}${s.advice ? `<p>${h(s.advice)}</p>\n` : ''}`;
}

/** Render the run page. Every string from config or the journal is escaped; chart SVGs come from render.ts (checked there). */
export function renderPage(model: ReportModel, charts: readonly RenderedChart[]): string {
  const s = model.summary;
  const u = model.indeterminate;
  // A complete run's status is one item of the header's line; an interrupted run or a forced merge says so first, as a banner.
  const quiet = (s.runStatus?.status ?? 'complete') === 'complete' && s.forcedOverlap === undefined;
  const status = quiet
    ? `<span id="provenance">${h(model.provenance)}</span>`
    : `<span>n = ${h(s.cycles.total)} cycles</span>`;
  const top =
    (quiet
      ? ''
      : `<section class="banner provenance" id="provenance"><strong>${h(model.provenance)}</strong></section>\n`) +
    (model.saturation
      ? `<section class="banner insufficient" id="saturated"><strong>${h(model.saturation)}</strong></section>\n`
      : '');
  const notice = u.notice
    ? `<section class="banner fail" id="incomplete"><strong>${h(u.notice)}</strong></section>\n`
    : '';
  const body = `${top}${notice}<header>
<h1>Kill-and-resume soak: ${h(s.scenario)}</h1>
<p class="meta">${status}<span>${h(s.date)} (${reportDateBasis(s.date, s.seedKey)})</span><span>target ${h(s.target)}</span><span>seed ${h(s.seed)}</span><span>run ${h(s.runId)}</span></p>
</header>
${verdictBanner(model)}
${storyHtml(model)}${nextStepsHtml(model)}<h2>Key figures</h2>
${cards(model)}
<h2>What was measured</h2>
${list(model.findings)}
${indeterminateHtml(u)}<h2 id="gates">Gates</h2>
${gateTableHtml(model)}
${anytimeHtml(model.gates)}${gateRulesHtml(model)}
${sinceLastHtml(model.sinceLast)}<h2>Charts</h2>
<div class="charts">
${charts.map(chartFigure).join('\n')}
</div>
<h2>Downtime quantiles</h2>
${quantileTable(model)}
<h2>Tested environment</h2>
<table class="env"><tbody>${model.environment.map(([k, v]) => `<tr><td>${h(k)}</td><td class="wrap">${h(v)}</td></tr>`).join('')}</tbody></table>
${sourcesHtml(model.sources)}<h2>Durability limits</h2>
${list(model.durability)}
<h3 id="guest-state">Guest state</h3>
${list(model.guestState)}
${guestMatrixHtml(model)}${effectsHtml(model.summary.effects)}${sessionsHtml(model.summary.sessions)}${hostCrashHtml(model.summary.hostCrashes)}${stormHtml(model.summary.checkpointStorms)}${memoryPressureHtml(model.summary.memoryPressure)}<h2>Scope and limitations</h2>
${list(model.limitations)}
<footer>Files: <a href="summary.md">summary.md</a> · <a href="summary.json">summary.json</a> · <a href="cycles.csv">cycles.csv</a> · <a href="../index.html">all reports</a>. Kill-and-resume success ${h(fmtPct(s.killResume.trials > 0 ? s.killResume.successes / s.killResume.trials : null))} measured once; see scope and limitations.</footer>`;
  return htmlDocument(`Soak report: ${s.scenario}, ${s.date}`, body);
}
