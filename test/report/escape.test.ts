import { describe, expect, test } from 'vitest';
import { visible } from '../../harness/core/visible.js';
import { escapeHtml, escapeMarkdown } from '../../harness/report/escape.js';
import { rateRows } from '../../harness/report/charts/gate-chart.js';
import { cyclesCsv } from '../../harness/report/text/csv.js';
import { makeAnalysis, makeGates } from './fixtures.js';

describe('escapeHtml', () => {
  test('escapes the five HTML-significant characters', () => {
    expect(escapeHtml(`<script>alert("x")</script> & 'y'`)).toBe(
      '&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;y&#39;',
    );
  });
  test('stringifies non-strings', () => {
    expect(escapeHtml(42)).toBe('42');
    expect(escapeHtml(null)).toBe('null');
  });
});

describe('escapeMarkdown', () => {
  test('neutralises markup and raw HTML', () => {
    expect(escapeMarkdown('<script>alert(1)</script>')).toBe('&lt;script\\>alert(1)&lt;/script\\>');
    expect(escapeMarkdown('*bold* _it_ [l](u) `c` a|b # h ~s~')).toBe(
      '\\*bold\\* \\_it\\_ \\[l\\](u) \\`c\\` a\\|b \\# h \\~s\\~',
    );
    expect(escapeMarkdown('a\nb')).toBe('a b');
    expect(escapeMarkdown('&amp;')).toBe('&amp;amp;');
  });
  test('leaves ordinary sentences readable', () => {
    expect(escapeMarkdown('Kill-and-resume succeeded in 30 of 30 cycles (Wilson 95%: 88.6%–100%).')).toBe(
      'Kill-and-resume succeeded in 30 of 30 cycles (Wilson 95%: 88.6%–100%).',
    );
  });
});

describe('bidirectional control characters', () => {
  const controls = '\u202A\u202B\u202C\u202D\u202E\u2066\u2067\u2068\u2069\u200E\u200F\u061C';
  const any = /[\u202A-\u202E\u2066-\u2069\u200E\u200F\u061C]/;
  test('visible shows each as its code point, and leaves other text alone', () => {
    expect(visible('a\u202Eb')).toBe('a[U+202E]b');
    expect(visible(controls)).not.toMatch(any);
    expect(visible(controls).match(/\[U\+[0-9A-F]{4}\]/g)).toHaveLength(12);
    expect(visible('Kill-and-resume 100% (80/80) – ≥ µs')).toBe('Kill-and-resume 100% (80/80) – ≥ µs');
  });
  test('HTML and Markdown escaping neutralise them too', () => {
    expect(escapeHtml(`x${controls}y`)).not.toMatch(any);
    expect(escapeMarkdown(`x${controls}y`)).not.toMatch(any);
    expect(escapeHtml('nightly\u202Egnp.exe')).toBe('nightly[U+202E]gnp.exe');
  });
  test('cycles.csv cells are neutralised', () => {
    const a = makeAnalysis({ cycles: 3 });
    const phases = [...a.cycles.phase];
    const violations = ['', 'bad\u202Estate', ''];
    const csv = cyclesCsv({ ...a.cycles, phase: phases, violations });
    expect(csv).not.toMatch(any);
    expect(csv).toContain('bad[U+202E]state');
  });
  test('chart labels are neutralised', () => {
    const a = makeAnalysis();
    const gates = makeGates(a).map((g) => ({ ...g, title: `${g.title}\u202E` }));
    for (const row of rateRows(gates, a.summary)) expect(row.label).not.toMatch(any);
  });
});
