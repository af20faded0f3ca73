// How the anytime-valid decisions read in summary.md, index.html and the live pages: labelled, with the rate's interval.
import { describe, expect, it } from 'vitest';
import { evaluateGates, loadGates } from '../../../harness/gates/evaluate.js';
import { anytimeHtml } from '../../../harness/report/html/anytime-list.js';
import { anytimeSection, fmtAnytimeDecision, fmtAnytimeInterval } from '../../../harness/report/text/anytime-format.js';
import { healthySamples, healthySummary } from '../../gates/fixtures.js';

const gates = evaluateGates(loadGates(), healthySummary(), { lostBeyondCheckpoint: 0, samples: healthySamples() });
const g6 = gates.find((g) => g.id === 6)!;

describe('anytime-valid decisions as text', () => {
  it('reads a rate gate as its decision at alpha and the interval of its rate, with the counts and the bar', () => {
    expect(fmtAnytimeDecision(g6)).toBe('pass at alpha 0.05');
    expect(fmtAnytimeInterval(g6)).toMatch(/^\[9\d\.\d%, 100%\] of trials that succeeded \(100\/100\) vs 95%$/);
    expect(fmtAnytimeDecision(gates.find((g) => g.id === 2)!)).toBe('pass (gate rule)');
    expect(fmtAnytimeDecision({})).toBe('–'); // a gate from an older summary.json
  });

  it('puts one row per gate in summary.md and one line per gate in index.html, escaped; nothing without decisions', () => {
    const md = anytimeSection(gates);
    expect(md[0]).toBe('### Anytime-valid decisions');
    expect(md.filter((l) => /^\| \d+ \|/.test(l))).toHaveLength(8);
    expect(md.join('\n')).toContain('&lt; 1000'); // "samples < 1000", escaped for Markdown
    const html = anytimeHtml(gates);
    expect(html.match(/<li data-gate=/g)).toHaveLength(8);
    expect(html).toContain('valid at every look');
    expect(html).not.toMatch(/samples < /);
    expect(anytimeSection(gates.map(({ anytime: _a, ...g }) => g))).toEqual([]);
    expect(anytimeHtml(gates.map(({ anytime: _a, ...g }) => g))).toBe('');
  });
});
