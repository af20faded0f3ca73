// The one rule of which characters no output shows raw: C0 controls but newline and tab (an escape sequence rewrites a
// terminal, a carriage return overwrites a line), DEL, C1 controls, and the bidirectional controls that reorder how a
// line reads (Trojan Source: "FAIL" shown as "LIAF", a number moved across a cell). Each becomes a visible "[U+202E]".
// Terminal lines use it directly; report/escape.ts builds HTML, Markdown and XML escaping on it; the live pages send
// their state through visibleJson.

// eslint-disable-next-line no-control-regex
const UNSAFE = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/g;

/** `c` as "[U+XXXX]". */
export function codePoint(c: string): string {
  return `[U+${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}]`;
}

/** `value` as text with every control and bidirectional control character shown as "[U+XXXX]" (newline, tab kept). */
export function visible(value: unknown): string {
  return String(value).replace(UNSAFE, codePoint);
}

/** JSON text of `value` with every string in it (keys too) made visible: for state a page shows as text. */
export function visibleJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (typeof v === 'string') return visible(v);
    if (v === null || typeof v !== 'object' || Array.isArray(v)) return v;
    return Object.fromEntries(Object.entries(v as Record<string, unknown>).map(([k, x]) => [visible(k), x]));
  });
}

/** What JSON.stringify leaves raw inside strings of what `visible` shows: DEL, C1 and bidirectional controls. */
const RAW_IN_JSON = /[\u007F-\u009F\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/g;

/** JSON text of `value` (`space` as JSON.stringify's) with those as \uXXXX escapes: the same value, none of them raw. */
export function escapedJson(value: unknown, space?: number): string {
  return JSON.stringify(value, null, space).replace(
    RAW_IN_JSON,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/**
 * The first `max` characters of `text` as a double-quoted excerpt safe on a terminal line (an adapter's answer in an
 * error message): C0 controls as JSON escapes, the rest of what `visible` shows as "[U+XXXX]", an ellipsis when cut.
 */
export function quotedExcerpt(text: string, max = 80): string {
  const cut = text.length > max;
  return `${visible(JSON.stringify(text.slice(0, max)))}${cut ? '…' : ''}`;
}
