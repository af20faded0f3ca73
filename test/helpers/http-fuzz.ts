// A seeded generator of hostile HTTP/1.x requests as raw bytes: methods, targets, versions, headers and bodies drawn
// from what parsers and routers trip on (unparsable targets, bad framing, control bytes, huge fields, a real token
// here and there so routes are reached), delivered whole, in pieces, or cut short.
import { createRng, type Rng } from '../../harness/stats/random.js';

/** One generated request: its bytes and how they are sent. */
export interface FuzzRequest {
  bytes: Buffer;
  /** Byte offsets at which the bytes are split into separate writes (empty: one write). */
  splits: number[];
}

const pick = <T>(rng: Rng, xs: readonly T[]): T => xs[rng.int(0, xs.length - 1)]!;

function randomBytes(rng: Rng, max: number): string {
  let s = '';
  for (let i = rng.int(0, max); i > 0; i--) s += String.fromCharCode(rng.int(0, 255));
  return s;
}

// prettier-ignore
const METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'HEAD', 'OPTIONS', 'PATCH', 'TRACE', 'CONNECT', 'PROPFIND', 'get', 'G ET', '', 'GET\x00', 'X'.repeat(300)];
// prettier-ignore
const VERSIONS = ['HTTP/1.1', 'HTTP/1.1', 'HTTP/1.0', 'HTTP/2.0', 'HTTP/1.x', 'http/1.1', '', 'HTTP/1.1 x'];
// prettier-ignore
const NAMES = ['Content-Length', 'Transfer-Encoding', 'Origin', 'Sec-Fetch-Site', 'X-Soak-Token', 'Connection', 'Upgrade', 'Expect', 'Cookie', 'X-Rand', 'Host', '', 'Bad Name', 'Na\x00me', 'Host:'];
const ENDS = ['\r\n', '\r\n', '\r\n', '\n', '\r'];

/** `n` requests against a live server on `port` whose token is `token`, the same ones for the same `seed`. */
export function fuzzRequests(seed: number, n: number, port: number, token: string): FuzzRequest[] {
  const rng = createRng(seed);
  const host = `127.0.0.1:${port}`;
  // prettier-ignore
  const paths = ['/', '/events', '/kill', '//', '//x', '/%', '/%%', '/%zz', '*', 'http://[', `http://${host}/`, `http://${host}/kill`, host, '/..', '/./events', '/\x7f', '/__proto__', '?', '#', `/${'a'.repeat(9000)}`, ''];
  // prettier-ignore
  const queries = ['', `?token=${token}`, '?token=', `?token=${token.slice(1)}`, `?a=%ZZ&token=${token}`, `?token=${token}&token=x`, '?%', `?token=${token}#frag`];
  // prettier-ignore
  const values = [host, '0', '5', '-1', '18446744073709551616', 'chunked', 'gzip, chunked', 'close', 'keep-alive', 'websocket', '100-continue', token, `http://${host}`, 'same-origin', 'cross-site', 'a\rb', 'a\nb', 'a\x00b', 'x'.repeat(20_000)];
  const out: FuzzRequest[] = [];
  for (let i = 0; i < n; i++) {
    // a third aimed at the routes (well-formed, the token, sometimes the page's Origin), a third well-formed HTTP
    // with hostile targets and fields, a third wild throughout
    const kind = pick(rng, ['routed', 'plausible', 'wild'] as const);
    const wild = kind === 'wild';
    const eol = wild ? pick(rng, ENDS) : '\r\n';
    let text: string;
    if (kind === 'routed') {
      const path = pick(rng, ['/', '/events', '/kill', '//', '/%', `http://${host}/`]);
      text = `${pick(rng, ['GET', 'POST'])} ${path}?token=${token} HTTP/1.1${eol}Host: ${host}${eol}`;
      if (rng.next() < 0.5) text += `Origin: http://${host}${eol}`;
      if (rng.next() < 0.3) text += `Content-Length: ${rng.int(0, 3)}${eol}`;
    } else {
      const target = wild && rng.next() < 0.2 ? randomBytes(rng, 40) : pick(rng, paths) + pick(rng, queries);
      const method = wild ? pick(rng, METHODS) : pick(rng, METHODS.slice(0, 10));
      text = `${method} ${target} ${wild ? pick(rng, VERSIONS) : 'HTTP/1.1'}${eol}`;
      if (!wild) text += `Host: ${host}${eol}`;
      for (let h = rng.int(0, wild ? 6 : 3); h > 0; h--) {
        const name = wild ? pick(rng, NAMES) : pick(rng, NAMES.slice(0, 10));
        const value = wild && rng.next() < 0.1 ? randomBytes(rng, 60) : pick(rng, wild ? values : values.slice(0, 15));
        text += `${name}: ${value}${eol}`;
      }
    }
    text += eol;
    if (rng.next() < 0.3) text += rng.next() < 0.5 ? `5${eol}hello${eol}0${eol}${eol}` : randomBytes(rng, 2000);
    let bytes = Buffer.from(text, 'latin1');
    if (rng.next() < 0.1) bytes = bytes.subarray(0, rng.int(0, bytes.length)); // cut short: the server's timeouts end it
    const splits: number[] = [];
    if (rng.next() < 0.2) for (let k = rng.int(1, 8); k > 0; k--) splits.push(rng.int(0, bytes.length));
    out.push({ bytes, splits: splits.sort((a, b) => a - b) });
  }
  return out;
}
