// Text from outside (an adapter's answer, a config value) made safe for a terminal line: bidirectional controls made
// visible (report/escape.ts builds the HTML and Markdown escapes on this), and a quoted excerpt with every control shown.

/** Bidirectional control characters: embeddings and overrides, isolates, LRM/RLM and the Arabic letter mark. */
const BIDI_CONTROLS = /[\u202A-\u202E\u2066-\u2069\u200E\u200F\u061C]/g;

/** C0 and C1 controls and DEL, which JSON.stringify leaves raw in part (DEL, C1). */
// eslint-disable-next-line no-control-regex
const CONTROLS = /[\u0000-\u001f\u007f-\u009f]/g;

const codePoint = (c: string): string => c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0');

/**
 * Replace every bidirectional control character with a visible "[U+202E]": one could otherwise reverse how the rest
 * of a line reads (a scenario name that makes "FAIL" display as "LIAF", or moves a number across a cell).
 */
export function neutralizeBidi(value: unknown): string {
  return String(value).replace(BIDI_CONTROLS, (c) => `[U+${codePoint(c)}]`);
}

/**
 * The first `max` characters of `text` as a double-quoted excerpt safe on a terminal: controls as \uXXXX (escape
 * sequences cannot reach a terminal raw), bidi controls as [U+XXXX], an ellipsis after the quote when cut.
 */
export function quotedExcerpt(text: string, max = 80): string {
  const cut = text.length > max;
  const inner = JSON.stringify(text.slice(0, max))
    .slice(1, -1)
    .replace(CONTROLS, (c) => `\\u${codePoint(c)}`);
  return `"${neutralizeBidi(inner)}"${cut ? '…' : ''}`;
}
