// A request's target as the live server routes it, read without ever throwing: origin-form (`/path?query`) and
// absolute-form (`http://host/path?query`, as a proxy sends it) give their path and query; anything else (`*`, `//`,
// `/%`, `http://[`) is a path no route has, with no query, so no token: the token check refuses it first.

/** The parts of a request target the live server looks at. */
export interface RequestTarget {
  /** The path exactly as sent (no normalisation, no percent-decoding): routes match it whole. */
  path: string;
  query: URLSearchParams;
}

/** Split `raw` (IncomingMessage.url) into path and query; never throws. */
export function readTarget(raw: string | undefined): RequestTarget {
  let target = raw ?? '';
  if (!target.startsWith('/')) {
    const url = URL.canParse(target) ? new URL(target) : null;
    if (url?.protocol !== 'http:' && url?.protocol !== 'https:') return { path: target, query: new URLSearchParams() };
    target = `${url.pathname}${url.search}`;
  }
  const q = target.indexOf('?');
  if (q < 0) return { path: target, query: new URLSearchParams() };
  return { path: target.slice(0, q), query: new URLSearchParams(target.slice(q + 1)) };
}
