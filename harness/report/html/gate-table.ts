// The run page's gate table (a card per gate on a narrow screen, page-style.ts), with each gate's note folded away,
// and the judging rules and gate descriptions folded under one summary. Figures through gate-format.ts; every string escaped.
import { escapeHtml as h } from '../escape.js';
import type { ReportModel } from '../model.js';
import type { GateResult } from '../../gates/types.js';
import {
  fmtGateInterval,
  fmtGateJudged,
  fmtGateObserved,
  fmtGateThreshold,
  fmtGateVerdict,
} from '../text/gate-format.js';

/** A cell; `label` is what a narrow screen prints above its value (the column's heading). */
function cell(col: string, label: string, value: string, cls = ''): string {
  return `<td data-col="${h(col)}" data-label="${h(label)}"${cls ? ` class="${h(cls)}"` : ''}>${h(value)}</td>`;
}

function row(g: GateResult): string {
  const note = g.note === '' ? '' : `<details class="note"><summary>note</summary><p>${h(g.note)}</p></details>`;
  return (
    `<tr data-gate="${h(g.id)}" data-verdict="${h(g.verdict)}"><td class="num id" data-col="id">${h(g.id)}</td>` +
    `<td class="gate wide" data-col="gate" data-label="${h(`Gate ${g.id}`)}"><span class="title">${h(g.title)}</span> <code>${h(g.metric)}</code>${note}</td>` +
    `<td data-col="verdict" data-label="Verdict"><span class="pill ${h(g.verdict)}">${h(fmtGateVerdict(g))}</span></td>` +
    cell('observed', 'Observed', fmtGateObserved(g), 'num') +
    cell('interval', '95% interval', fmtGateInterval(g), 'num') +
    cell('judged', 'Judged on', fmtGateJudged(g)) +
    cell('threshold', 'Bar', fmtGateThreshold(g)) +
    cell('n', 'n (min)', `${g.n} (${g.minN})`, 'num') +
    '</tr>'
  );
}

/** The gate table ("No gate was judged" without gates). */
export function gateTableHtml(model: ReportModel): string {
  if (model.gates.length === 0) return '<p>No gate was judged for this report.</p>';
  return `<table class="gates cards-narrow"><thead><tr><th>#</th><th>Gate</th><th>Verdict</th><th>Observed</th><th>95% interval</th><th>Judged on</th><th>Bar</th><th>n (min)</th></tr></thead>
<tbody>${model.gates.map(row).join('\n')}</tbody></table>`;
}

/** How the gates are judged and what each checks, folded under one summary. */
export function gateRulesHtml(model: ReportModel): string {
  const described = model.gates.filter((g) => g.description !== '');
  const items = described.map((g) => `<dt>${h(g.id)}. ${h(g.title)}</dt><dd>${h(g.description)}</dd>`);
  const rules = `<ul class="claims">${model.gateRules.map((r) => `<li>${h(r)}</li>`).join('\n')}</ul>`;
  return `<details id="gate-rules"><summary>How the gates are judged${items.length > 0 ? ', and what each gate checks' : ''}</summary>
<h3>How the gates are judged</h3>
${rules}
${items.length > 0 ? `<h3>What each gate checks</h3>\n<dl class="gate-descriptions">${items.join('\n')}</dl>` : ''}
</details>`;
}
