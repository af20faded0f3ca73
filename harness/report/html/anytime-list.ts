// The run page's anytime-valid decisions, under the gate table: one line per gate (decision and interval), folded, so
// the fixed-n table keeps its columns and the first screen its layout. Every string escaped.
import { escapeHtml as h } from '../escape.js';
import type { GateResult } from '../../gates/types.js';
import { ANYTIME_LABEL, fmtAnytimeDecision, fmtAnytimeInterval } from '../text/anytime-format.js';

/** The folded list ('' for gates judged before they had anytime decisions). */
export function anytimeHtml(gates: readonly GateResult[]): string {
  const decided = gates.filter((g) => g.anytime !== undefined);
  if (decided.length === 0) return '';
  const items = decided.map(
    (g) =>
      `<li data-gate="${h(g.id)}" data-decision="${h(g.anytime?.decision ?? '')}"><b>${h(g.id)}. ${h(g.title)}</b>: ${h(fmtAnytimeDecision(g))}${fmtAnytimeInterval(g) ? ` (${h(fmtAnytimeInterval(g))})` : ''}</li>`,
  );
  return `<details id="anytime-decisions"><summary>${h(`Decisions ${ANYTIME_LABEL}; the verdicts above are fixed-n (valid at the planned end only)`)}</summary>
<ul class="claims">${items.join('\n')}</ul>
</details>`;
}
