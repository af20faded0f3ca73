// The run page's first screen: the verdict banner, each gate that did not pass with its measured value, 95% interval,
// judged figure and bar (gate-format.ts, as everywhere), and what to do next. Every string escaped.
import { escapeHtml as h } from '../escape.js';
import type { ReportModel } from '../model.js';
import { storyGates, type StepPart } from '../next-steps.js';
import type { GateResult } from '../../gates/types.js';
import {
  fmtGateInterval,
  fmtGateJudged,
  fmtGateObserved,
  fmtGateThreshold,
  fmtGateVerdict,
} from '../text/gate-format.js';

/** The verdict banner (the lattice's headline and detail, gates/verdict.ts). */
export function verdictBanner(model: ReportModel): string {
  const v = model.verdict;
  return `<section class="banner ${h(v.level)}" id="verdict"><strong>${h(v.headline)}</strong><p><span class="scope">${h(model.scope)}</span> ${h(v.detail)}</p></section>`;
}

function figure(label: string, field: string, value: string): string {
  return `<div><dt>${h(label)}</dt><dd data-field="${h(field)}">${h(value)}</dd></div>`;
}

/** One gate that did not pass: its verdict, then measured, 95% interval, judged on, bar and n, as the gate table prints them. */
function storyGate(g: GateResult): string {
  return `<article class="story-gate ${h(g.verdict)}" data-gate="${h(g.id)}" data-verdict="${h(g.verdict)}">
<h3><span class="pill ${h(g.verdict)}">${h(fmtGateVerdict(g))}</span> <span class="title">${h(g.id)}. ${h(g.title)}</span></h3>
<dl class="figures">${figure('measured', 'observed', fmtGateObserved(g))}${figure('95% interval', 'interval', fmtGateInterval(g))}${figure('judged on', 'judged', fmtGateJudged(g))}${figure('bar', 'bar', fmtGateThreshold(g))}${figure('n (min)', 'n', `${g.n} (${g.minN})`)}</dl>
</article>`;
}

/** The gates that did not pass (none for a negative control, whose gates are meant to fail), and which passed. */
export function storyHtml(model: ReportModel): string {
  if (model.summary.negativeControl === true || model.gates.length === 0) return '';
  const told = storyGates(model.gates);
  const passed = model.gates.filter((g) => g.verdict === 'pass').map((g) => g.id);
  const passLine =
    told.length === 0 || passed.length === 0
      ? ''
      : `<p class="passed">Passed: gate${passed.length === 1 ? '' : 's'} ${h(passed.join(', '))} (all gates in the table below).</p>`;
  return `<section id="first-screen" aria-label="Gates that did not pass">
${told.map(storyGate).join('\n')}
${passLine}</section>
`;
}

/** A step's parts as HTML: words escaped, commands as code. */
function stepHtml(parts: readonly StepPart[]): string {
  return parts.map((p) => (typeof p === 'string' ? h(p) : `<code>${h(p.code)}</code>`)).join('');
}

/** "What to do next": one item per step, most severe first. */
export function nextStepsHtml(model: ReportModel): string {
  const items = model.nextSteps.map(
    (s) => `<li${s.gates.length > 0 ? ` data-gates="${h(s.gates.join(' '))}"` : ''}>${stepHtml(s.parts)}</li>`,
  );
  return `<section id="next-steps">
<h2>What to do next</h2>
<ol>${items.join('\n')}</ol>
</section>
`;
}
