// The "Since last report" section of the run page: the baseline's identity, each gate then and now, the downtime test.
import { escapeHtml as h } from '../escape.js';
import { VERDICT_WORD } from '../../gates/verdict.js';
import type { SinceLast } from '../baseline/since-last.js';

/** The section's HTML ('' without a baseline). */
export function sinceLastHtml(s: SinceLast | undefined): string {
  if (s === undefined) return '';
  const b = s.baseline;
  const verdict = b.verdict === 'none' ? 'no gates' : VERDICT_WORD[b.verdict];
  const rows = s.gates.map(
    (g) =>
      `<tr data-gate="${h(g.id)}"><td class="num">${h(g.id)}</td><td class="wrap">${h(g.title)}</td>` +
      `<td class="wrap" data-col="then">${h(g.then)}</td><td class="wrap" data-col="now">${h(g.now)}</td><td data-col="change">${h(g.change)}</td></tr>`,
  );
  return `<section id="since-last">
<h2>Since last report</h2>
<p class="baseline">Compared with <a href="../${h(encodeURIComponent(b.dir))}/index.html"><code>${h(b.dir)}</code></a>: run <code>${h(b.runId)}</code> of ${h(b.date)}, stored verdict <strong>${h(verdict)}</strong>.</p>
<div class="table-scroll"><table class="since-last"><thead><tr><th>#</th><th>Gate</th><th>Then</th><th>Now</th><th>Change</th></tr></thead>
<tbody>${rows.join('\n')}</tbody></table></div>
<p class="downtime-change">${h(s.downtimeLine)}</p>
</section>
`;
}
