import { describe, expect, test } from 'vitest';
import { escapeHtml, escapeMarkdown } from '../../harness/report/escape.js';

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
