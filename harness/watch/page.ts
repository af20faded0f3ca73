// The `soak watch` page: static markup plus the script that fills it from WatchSnapshot, drawing the downtime
// histogram and ECDF as inline SVG built element by element (no markup from data).
import { livePage, SCRIPT_PRELUDE } from '../live/shell.js';
import { ANYTIME_LABEL, FIXED_N_LABEL } from '../report/text/anytime-format.js';

const BODY = `
<h1>soak watch <span id="status" class="badge" data-state="booting">reading…</span> <small id="conn" class="mute">connecting…</small></h1>
<p class="mute">Read-only view of <span id="run" class="mono">–</span>: scenario <b id="scenario">–</b>, target <b id="target">–</b>.
Figures are the report's (same analysis, same gates), recomputed each time the journal grows. <span id="read" class="mono"></span></p>
<p id="error" class="mute"></p>
<div class="grid">
<section><h2>Cycles</h2>
<table>
<tr><th>done</th><td id="c-done">–</td></tr>
<tr><th>resumed</th><td id="c-ok">–</td></tr>
<tr><th>failed</th><td id="c-fail">–</td></tr>
<tr><th>indeterminate</th><td id="c-ind">–</td></tr>
<tr><th>ETA</th><td id="eta">–</td></tr>
</table>
<p><b id="verdict">–</b></p>
</section>
<section id="sessions-box" hidden><h2>Sessions</h2>
<table><thead><tr><th>session</th><th>done</th><th>failed</th><th>indeterminate</th></tr></thead><tbody id="sessions"></tbody></table>
</section>
<section><h2>Downtime histogram (ms)</h2><svg id="hist" viewBox="0 0 320 160" role="img" aria-label="downtime histogram"></svg></section>
<section><h2>Downtime ECDF (ms)</h2><svg id="ecdf" viewBox="0 0 320 160" role="img" aria-label="downtime ECDF"></svg></section>
</div>
<section><h2>What was measured</h2><ul id="findings"></ul></section>
<section><h2>Gates as they stand</h2>
<p class="mute" id="gates-help">Two verdicts per gate. The fixed-n verdict (Wilson interval, order-statistic bounds) holds for a run whose
length was fixed in advance, read once at its end: stopping the first time it looks green passes a bad system far more
often than 5%. The anytime-valid decision stays valid however often this page is looked at and whenever the run stops
(docs/anytime.md).</p>
<table><thead><tr><th>#</th><th>gate</th><th>threshold</th><th>observed</th><th>95% interval (fixed n)</th><th>n</th><th>${FIXED_N_LABEL}</th><th>${ANYTIME_LABEL}</th></tr></thead><tbody id="gates"></tbody></table></section>
<section><h2>Failures</h2><ol id="failures"></ol></section>
`;

const SCRIPT = `${SCRIPT_PRELUDE}
const NS = 'http://www.w3.org/2000/svg';
function el(tag, attrs, txt) { const e = document.createElementNS(NS, tag); for (const k in attrs) e.setAttribute(k, String(attrs[k])); if (txt !== undefined) e.textContent = txt; return e; }
const W = 320, H = 160, L = 34, B = 20, T = 6, R = 6;
function axes(svg, x0, x1, y1, yLabel) {
  svg.append(el('line', { x1: L, y1: H - B, x2: W - R, y2: H - B, stroke: 'currentColor' }), el('line', { x1: L, y1: T, x2: L, y2: H - B, stroke: 'currentColor' }));
  svg.append(el('text', { x: L, y: H - 4, 'font-size': 10, fill: 'currentColor' }, x0.toFixed(0)), el('text', { x: W - R, y: H - 4, 'font-size': 10, 'text-anchor': 'end', fill: 'currentColor' }, x1.toFixed(0)));
  svg.append(el('text', { x: L - 3, y: T + 8, 'font-size': 10, 'text-anchor': 'end', fill: 'currentColor' }, yLabel(y1)));
}
function drawHist(bins) {
  const svg = $('hist'); svg.replaceChildren();
  if (!bins.length) { svg.append(el('text', { x: 10, y: 20, fill: 'currentColor' }, 'no downtime yet')); return; }
  const x0 = bins[0].x0, x1 = bins[bins.length - 1].x1, top = Math.max(...bins.map((b) => b.count));
  const sx = (x) => L + (x - x0) / (x1 - x0 || 1) * (W - L - R), sy = (c) => H - B - c / top * (H - B - T);
  for (const b of bins) svg.append(el('rect', { x: sx(b.x0), y: sy(b.count), width: Math.max(1, sx(b.x1) - sx(b.x0) - 1), height: H - B - sy(b.count), fill: '#0969da', 'data-count': b.count }));
  axes(svg, x0, x1, top, (v) => String(v));
}
function drawEcdf(points) {
  const svg = $('ecdf'); svg.replaceChildren();
  if (!points.length) { svg.append(el('text', { x: 10, y: 20, fill: 'currentColor' }, 'no downtime yet')); return; }
  const x0 = points[0].x, x1 = points[points.length - 1].x;
  const sx = (x) => L + (x - x0) / (x1 - x0 || 1) * (W - L - R), sy = (p) => H - B - p * (H - B - T);
  let d = 'M' + sx(points[0].x) + ' ' + sy(0), prev = 0;
  for (const p of points) { d += ' L' + sx(p.x) + ' ' + sy(prev) + ' L' + sx(p.x) + ' ' + sy(p.p); prev = p.p; }
  svg.append(el('path', { d, fill: 'none', stroke: '#0969da', 'stroke-width': 1.5 }));
  axes(svg, x0, x1, 1, () => '1');
}
let lastRead = '';
function render(s) {
  if (!s) { text('status', 'reading…'); return; }
  const st = $('status'); st.textContent = s.status; st.dataset.state = s.status === 'complete' ? 'pass' : (s.status.startsWith('running') ? 'running' : 'failed');
  text('run', s.runDir); text('scenario', s.scenario); text('target', s.target); text('error', s.error ? 'last read failed: ' + s.error : '');
  const across = s.sessions.length > 0 ? ' (' + s.sessions.length + ' sessions)' : '';
  text('c-done', s.cycles.done + (s.cycles.planned !== null ? ' of ' + s.cycles.planned : '') + across);
  $('sessions-box').hidden = s.sessions.length === 0;
  $('sessions').replaceChildren(...s.sessions.map((r) => {
    const tr = document.createElement('tr'); tr.dataset.session = String(r.session);
    for (const v of [r.session, r.done + (r.planned !== null ? ' of ' + r.planned : ''), r.failed, r.indeterminate]) { const td = document.createElement('td'); td.textContent = String(v); tr.append(td); }
    return tr;
  }));
  text('c-ok', s.cycles.resumed); text('c-fail', s.cycles.failed); text('c-ind', s.cycles.indeterminate);
  text('eta', s.etaS === null ? '–' : Math.round(s.etaS) + ' s'); text('verdict', s.verdictLine);
  if (s.readAt === lastRead) return;
  lastRead = s.readAt; text('read', 'read ' + s.readAt);
  listInto('findings', s.findings); listInto('failures', s.failures);
  $('gates').replaceChildren(...s.gates.map((g) => {
    const tr = document.createElement('tr'); tr.dataset.gate = String(g.id);
    for (const v of [g.id, g.title, g.threshold, g.observed, g.interval, g.n]) { const td = document.createElement('td'); td.textContent = String(v); tr.append(td); }
    const td = document.createElement('td'); const b = document.createElement('span'); b.className = 'badge'; b.dataset.state = g.state; b.textContent = g.verdict; td.append(b); tr.append(td);
    const at = document.createElement('td'); at.className = 'anytime'; at.dataset.decision = g.anytimeState;
    const ab = document.createElement('span'); ab.className = 'badge'; ab.dataset.state = g.anytimeState === 'undecided' ? 'insufficient' : g.anytimeState; ab.textContent = g.anytime;
    const ai = document.createElement('div'); ai.className = 'mute'; ai.textContent = g.anytimeInterval; at.append(ab, ai); tr.append(at);
    return tr;
  }));
  drawHist(s.histogram); drawEcdf(s.ecdf);
}
connect(render);
`;

/** The watch page for `nonce`. */
export function watchPage(nonce: string): string {
  return livePage({ title: 'soak watch', nonce, body: BODY, script: SCRIPT });
}
