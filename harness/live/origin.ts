// CSRF defence for the live page's one action: a POST counts only when the browser says it comes from the page's own
// origin (Sec-Fetch-Site: same-origin, and an Origin header equal to the Host it was sent to).
import type { IncomingMessage } from 'node:http';

/** True when `req` is a same-origin browser request: Origin present and equal to http://<Host>, fetch site same-origin. */
export function isSameOrigin(req: Pick<IncomingMessage, 'headers'>): boolean {
  const { origin, host } = req.headers;
  const site = req.headers['sec-fetch-site'];
  if (typeof origin !== 'string' || typeof host !== 'string') return false;
  if (origin !== `http://${host}`) return false;
  return site === undefined || site === 'same-origin';
}
