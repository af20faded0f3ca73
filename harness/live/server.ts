// The live page's web server (soak demo, soak watch): node:http on 127.0.0.1 by default, a random port, a one-time
// random token required on every request (403 otherwise), a CSP nonce per page, state pushed over Server-Sent Events.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { visibleJson } from '../core/visible.js';
import { isSameOrigin } from './origin.js';

/** What a live page serves: its HTML for a nonce, the state it pushes, and an optional action (POST /kill). */
export interface LiveServerOptions {
  /** Address to bind (default 127.0.0.1). */
  host?: string;
  /** Port (default 0: a random free port). */
  port?: number;
  /** The page's HTML, with `nonce` on its inline style and script. */
  page: (nonce: string) => string;
  /** The state pushed to every page, serialised as JSON with every string's controls made visible (core/visible.ts). */
  snapshot: () => unknown;
  /** How often the state is pushed, ms (default 100: 10 times a second). */
  intervalMs?: number;
  /** POST /kill: the demo's button (absent: 404, read-only pages). */
  onKill?: () => void;
}

/** A running live server: the URL to open (token included) and how to close it. */
export interface LiveServer {
  url: string;
  token: string;
  close(): Promise<void>;
}

const STATIC_HEADERS = {
  'Cache-Control': 'no-store',
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
  'Cross-Origin-Resource-Policy': 'same-origin',
};

/** The page's Content-Security-Policy: nothing but its own nonce'd style and script, and its own origin's events. */
export function contentSecurityPolicy(nonce: string): string {
  return [
    "default-src 'none'",
    `script-src 'nonce-${nonce}'`,
    `style-src 'nonce-${nonce}'`,
    "connect-src 'self'",
    "img-src 'self' data:",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/** Start a live server; resolves once it listens. */
export async function startLiveServer(opts: LiveServerOptions): Promise<LiveServer> {
  const token = randomBytes(24).toString('base64url');
  const expected = Buffer.from(token);
  const clients = new Set<ServerResponse>();
  const tokenOk = (given: string | null): boolean => {
    const b = Buffer.from(given ?? '');
    return b.length === expected.length && timingSafeEqual(b, expected);
  };
  const deny = (res: ServerResponse, code: number, text: string): void => {
    res.writeHead(code, { ...STATIC_HEADERS, 'Content-Type': 'text/plain; charset=utf-8' });
    res.end(`${text}\n`);
  };
  const handle = (req: IncomingMessage, res: ServerResponse): void => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (!tokenOk(url.searchParams.get('token') ?? headerText(req.headers['x-soak-token'])))
      return deny(res, 403, 'forbidden: this page needs the token printed by soak');
    if (req.method === 'GET' && url.pathname === '/') {
      const nonce = randomBytes(16).toString('base64');
      res.writeHead(200, {
        ...STATIC_HEADERS,
        'Content-Type': 'text/html; charset=utf-8',
        'Content-Security-Policy': contentSecurityPolicy(nonce),
      });
      return void res.end(opts.page(nonce));
    }
    if (req.method === 'GET' && url.pathname === '/events') {
      res.writeHead(200, { ...STATIC_HEADERS, 'Content-Type': 'text/event-stream', Connection: 'keep-alive' });
      res.write(`retry: 500\n\n`);
      clients.add(res);
      push(res);
      req.on('close', () => clients.delete(res));
      return;
    }
    if (req.method === 'POST' && url.pathname === '/kill' && opts.onKill) {
      if (!isSameOrigin(req)) return deny(res, 403, 'forbidden: cross-origin request refused');
      opts.onKill();
      res.writeHead(204, STATIC_HEADERS);
      return void res.end();
    }
    deny(res, 404, 'not found');
  };
  const push = (res: ServerResponse): void => {
    res.write(`data: ${visibleJson(opts.snapshot())}\n\n`);
  };
  const server = createServer(handle);
  const timer = setInterval(() => {
    if (clients.size === 0) return;
    const line = `data: ${visibleJson(opts.snapshot())}\n\n`;
    for (const c of clients) c.write(line);
  }, opts.intervalMs ?? 100);
  timer.unref();
  const host = opts.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const shown = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${shown}:${port}/?token=${token}`,
    token,
    close: async () => {
      clearInterval(timer);
      for (const c of clients) c.end();
      clients.clear();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function headerText(v: string | string[] | undefined): string | null {
  return typeof v === 'string' ? v : null;
}
