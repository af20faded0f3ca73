// Escaping for public outputs: every string from config or the journal goes through escapeHtml (HTML), escapeMarkdown
// (summary.md), escapeXml (JUnit) or at least visible (CSV cells, chart labels, terminal tables). Which characters are
// never shown raw (controls, bidirectional controls) is core/visible.ts's rule; this file adds each format's own.
import { codePoint, visible } from '../core/visible.js';

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Escape text for HTML element content and double- or single-quoted attribute values (controls made visible). */
export function escapeHtml(value: unknown): string {
  return visible(value).replace(/[&<>"']/g, (c) => HTML_ESCAPES[c] ?? c);
}

/**
 * Escape text for Markdown (a sentence, a list item or a table cell): make controls visible, backslash the
 * characters that start emphasis, links, code, tables or headings, turn & and < into entities so no raw HTML
 * survives, and flatten newlines.
 */
export function escapeMarkdown(value: unknown): string {
  return visible(value)
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/[\\`*_[\]|#~>]/g, (c) => `\\${c}`)
    .replace(/\r?\n|\r/g, ' ');
}

/** What XML 1.0 cannot hold that `visible` leaves: lone surrogates, U+FFFE and U+FFFF. */
const NOT_XML = /[\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

const XML_ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&apos;',
  '\t': '&#9;',
  '\n': '&#10;',
};

/**
 * Escape text for XML content and attribute values (JUnit): controls made visible, and what XML cannot hold at all
 * shown the same way ("[U+FFFE]"); markup characters as entities, tab and LF as character references (so attributes
 * keep them).
 */
export function escapeXml(value: unknown): string {
  return visible(value)
    .replace(NOT_XML, codePoint)
    .replace(/[&<>"'\t\n]/g, (c) => XML_ESCAPES[c] ?? c);
}
