// Checks on SVG produced by vega before it is inlined in a public page: known elements only, no handlers or links; scoped ids.

const ALLOWED_ELEMENTS = new Set([
  'svg',
  'g',
  'path',
  'rect',
  'line',
  'circle',
  'ellipse',
  'polyline',
  'polygon',
  'text',
  'tspan',
  'defs',
  'clipPath',
  'linearGradient',
  'radialGradient',
  'stop',
  'title',
  'desc',
]);

/** The SVG contains something a static chart never needs (script, foreignObject, event handler, link): refuse to publish it. */
export class UnsafeSvgError extends Error {}

/**
 * Throw UnsafeSvgError unless every tag is an allowed SVG element and no attribute is an event handler or a link.
 * Vega escapes &, <, > and " in text and attribute values, so every "<" in its output starts a real tag.
 */
export function assertSafeSvg(svg: string): void {
  const tag = /<\/?([A-Za-z][\w:.-]*)((?:\s+[\w:.-]+="[^"]*")*)\s*\/?>/g;
  let tags = 0;
  for (const m of svg.matchAll(tag)) {
    const name = m[1] ?? '';
    if (!ALLOWED_ELEMENTS.has(name)) throw new UnsafeSvgError(`SVG element <${name}> is not allowed in a report chart`);
    for (const a of (m[2] ?? '').matchAll(/([\w:.-]+)="[^"]*"/g)) {
      const attr = (a[1] ?? '').toLowerCase();
      if (attr.startsWith('on') || attr === 'href' || attr === 'xlink:href' || attr === 'style') {
        throw new UnsafeSvgError(`SVG attribute ${attr} on <${name}> is not allowed in a report chart`);
      }
    }
    tags++;
  }
  if (tags === 0 || svg.split('<').length - 1 !== tags)
    throw new UnsafeSvgError('SVG contains a "<" that is not a well-formed tag');
}

/** Prefix every id="..." and its url(#...) / href="#..." references, so inlined SVGs cannot collide. */
export function scopeSvgIds(svg: string, prefix: string): string {
  const safePrefix = prefix.replace(/[^A-Za-z0-9_-]/g, '-');
  return svg
    .replace(/\sid="([^"]*)"/g, (_m, id: string) => ` id="${safePrefix}-${id}"`)
    .replace(/url\(#([^)]*)\)/g, (_m, id: string) => `url(#${safePrefix}-${id})`);
}
