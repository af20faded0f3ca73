// core/visible.ts, the one rule of which characters no output shows raw: each class (C0 but newline and tab, DEL, C1,
// bidirectional controls) becomes "[U+XXXX]" in text, in HTML, Markdown and XML (report/escape.ts builds on it), in
// the live pages' JSON; escapedJson keeps the value and writes them as JSON escapes. Negative controls: newline, tab
// and ordinary non-ASCII text pass unchanged.
import { describe, expect, it } from 'vitest';
import { escapedJson, visible, visibleJson } from '../../harness/core/visible.js';
import { escapeHtml, escapeMarkdown, escapeXml } from '../../harness/report/escape.js';

const C0 = Array.from({ length: 32 }, (_, i) => String.fromCharCode(i)).filter((c) => c !== '\n' && c !== '\t');
const C1 = Array.from({ length: 33 }, (_, i) => String.fromCharCode(0x7f + i)); // DEL and U+0080-U+009F
const BIDI = [
  '\u202A',
  '\u202B',
  '\u202C',
  '\u202D',
  '\u202E',
  '\u2066',
  '\u2067',
  '\u2068',
  '\u2069',
  '\u200E',
  '\u200F',
  '\u061C',
];
const ALL = [...C0, ...C1, ...BIDI];
// eslint-disable-next-line no-control-regex
const RAW = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/;

describe('visible', () => {
  it('shows every character of each class as its code point', () => {
    for (const c of ALL) {
      const hex = c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0');
      expect(visible(`a${c}b`), hex).toBe(`a[U+${hex}]b`);
    }
    expect(visible(ALL.join(''))).not.toMatch(RAW);
  });

  it('negative control: newline, tab and ordinary text (accents, dashes, CJK, emoji) pass unchanged', () => {
    const text = 'line 1\n\tindented – ≥ µs café 日本 ✅ [U+202E] literal';
    expect(visible(text)).toBe(text);
    expect(visible(42)).toBe('42');
  });

  it('HTML, Markdown and XML escaping show them the same way', () => {
    for (const esc of [escapeHtml, escapeMarkdown, escapeXml]) expect(esc(ALL.join('x')), esc.name).not.toMatch(RAW);
    expect(escapeXml('a\u202Eb\u001bc\u0085')).toBe('a[U+202E]b[U+001B]c[U+0085]');
  });

  it('visibleJson makes every string and key of a live page state visible, numbers and structure kept', () => {
    const state = { name: 'x\u202Ey', n: 3, list: ['\u001b[2J', null], nested: { 'k\u0085': true } };
    const text = visibleJson(state);
    expect(text).not.toMatch(RAW);
    expect(JSON.parse(text)).toEqual({
      name: 'x[U+202E]y',
      n: 3,
      list: ['[U+001B][2J', null],
      nested: { 'k[U+0085]': true },
    });
  });

  it('escapedJson writes none of them raw and keeps the value exactly', () => {
    const value = { s: ALL.join(''), t: 'plain – text' };
    const text = escapedJson(value, 2);
    expect(text).not.toMatch(RAW);
    expect(JSON.parse(text)).toEqual(value);
    expect(escapedJson({ t: 'plain – text' })).toBe(JSON.stringify({ t: 'plain – text' }));
  });
});
