// Escaping for public outputs: every string from config or the journal goes through escapeHtml (HTML), escapeMarkdown
// (summary.md) or at least neutralizeBidi (CSV cells, chart labels, terminal tables; its home is core/escape.ts).
import { neutralizeBidi } from '../core/escape.js';

export { neutralizeBidi };

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

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
