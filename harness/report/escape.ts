// Escaping for public outputs: every string from config or the journal goes through escapeHtml (HTML), escapeMarkdown
// (summary.md) or at least neutralizeBidi (CSV cells, chart labels, terminal tables).

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Bidirectional control characters: embeddings and overrides, isolates, LRM/RLM and the Arabic letter mark. */
const BIDI_CONTROLS = /[\u202A-\u202E\u2066-\u2069\u200E\u200F\u061C]/g;

/**
 * Replace every bidirectional control character with a visible "[U+202E]": one could otherwise reverse how the rest
 * of a line reads (a scenario name that makes "FAIL" display as "LIAF", or moves a number across a cell).
 */
export function neutralizeBidi(value: unknown): string {
  return String(value).replace(
    BIDI_CONTROLS,
    (c) => `[U+${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}]`,
  );
}

/** Escape text for HTML element content and double- or single-quoted attribute values (bidi controls neutralised). */
export function escapeHtml(value: unknown): string {
  return neutralizeBidi(value).replace(/[&<>"']/g, (c) => HTML_ESCAPES[c] ?? c);
}

/**
 * Escape text for Markdown (a sentence, a list item or a table cell): neutralise bidi controls, backslash the
 * characters that start emphasis, links, code, tables or headings, turn & and < into entities so no raw HTML
 * survives, and flatten newlines.
 */
export function escapeMarkdown(value: unknown): string {
  return neutralizeBidi(value)
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/[\\`*_[\]|#~>]/g, (c) => `\\${c}`)
    .replace(/\r?\n|\r/g, ' ');
}
