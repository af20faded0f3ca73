// The live page's web server (soak demo, soak watch): node:http on 127.0.0.1 by default, a random port, a one-time
// random token required on every request (403 otherwise), a CSP nonce per page, state pushed over Server-Sent Events.
// No request can make it throw: a failing route answers 500 and is logged; limits.ts bounds what clients may hold.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { InputError } from '../core/errors.js';
import { createLogger, type Logger } from '../core/logger.js';
import { visibleJson } from '../core/visible.js';
import { EventStreams } from './event-stream.js';
import { guardServer, LIVE_LIMITS, serverOptions, type LiveLimits } from './limits.js';
import { isSameOrigin } from './origin.js';
import { readTarget } from './request-target.js';

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
  /**
   * POST /kill: the demo's button (absent: 404, read-only pages), given the request's query (`session=<i>` on a page of
   * many sessions); true: done (204), false: refused now (409), a string: the request names nothing it can kill (400).
   */
  onKill?: (query: URLSearchParams) => boolean | string;
  /** POST /kill-host: SIGKILL every session's host at once (absent: 404); answered as onKill is. */
  onKillHost?: () => boolean | string;
  /** Bounds on clients (default LIVE_LIMITS). */
  limits?: Partial<LiveLimits>;
  /** Where a failed request, a dropped client or a refused connection is logged (default: warnings on stderr). */
  log?: Logger;
}

/** A running live server: the URL to open (token included) and how to close it. */
export interface LiveServer {
  url: string;
  token: string;
  /** Open connections, event streams, and the bytes those hold unsent in the server. */
  stats(): Promise<{ sockets: number; streams: number; bufferedBytes: number }>;
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
  const limits = { ...LIVE_LIMITS, ...opts.limits };
  const log = opts.log ?? createLogger(null, 'warn');
  const token = randomBytes(24).toString('base64url');
  const expected = Buffer.from(token);
  const streams = new EventStreams(limits.maxStreamBufferBytes, log);
  const tokenOk = (given: string | null): boolean => {
    const b = Buffer.from(given ?? '');
    return b.length === expected.length && timingSafeEqual(b, expected);
  };
  let failing = false; // logged once per run of failures, not ten times a second
  /** One update as an event, or null (logged) when the snapshot cannot be had. */
  const event = (): string | null => {
    try {
      const line = `data: ${visibleJson(opts.snapshot())}\n\n`;
      failing = false;
      return line;
    } catch (err) {
      if (!failing) log.error({ err }, 'live server: the page state could not be read');
      failing = true;
      return null;
    }
  };
  const routes: Record<string, Route | undefined> = {
    '/': {
      method: 'GET',
      serve: (_req, res) => {
        const nonce = randomBytes(16).toString('base64');
        const html = opts.page(nonce);
        res.writeHead(200, {
          ...STATIC_HEADERS,
          'Content-Type': 'text/html; charset=utf-8',
          'Content-Security-Policy': contentSecurityPolicy(nonce),
        });
        res.end(html);
      },
    },
    '/events': {
      method: 'GET',
      serve: (_req, res) => {
        res.writeHead(200, { ...STATIC_HEADERS, 'Content-Type': 'text/event-stream', Connection: 'keep-alive' });
        streams.open(res, event());
      },
    },
    '/kill': opts.onKill && action((query) => opts.onKill!(query)),
    '/kill-host': opts.onKillHost && action(() => opts.onKillHost!()),
  };
  const handle = (req: IncomingMessage, res: ServerResponse): void => {
    // a body is never read: the connection closes after the answer instead of reading (or waiting for) the rest
    if (hasBody(req)) res.setHeader('Connection', 'close');
    const { path, query } = readTarget(req.url);
    if (!tokenOk(query.get('token') ?? headerText(req.headers['x-soak-token'])))
      return deny(res, 403, 'forbidden: this page needs the token printed by soak');
    const route = Object.hasOwn(routes, path) ? routes[path] : undefined;
    if (!route) return deny(res, 404, 'not found');
    if (req.method !== route.method) {
      res.setHeader('Allow', route.method);
      return deny(res, 405, 'method not allowed');
    }
    route.serve(req, res);
  };
  const server = createServer(serverOptions(limits), (req, res) => {
    try {
      handle(req, res);
    } catch (err) {
      log.error({ err, method: req.method, url: req.url?.slice(0, 200) }, 'live server: a request failed');
      if (res.headersSent) res.destroy();
      else deny(res, 500, 'internal error (logged)');
    }
  });
  guardServer(server, limits, log, (socket) => streams.streaming(socket));
  const timer = setInterval(() => {
    if (streams.size === 0) return;
    const line = event();
    if (line !== null) streams.send(line);
  }, opts.intervalMs ?? 100);
  timer.unref();
  const host = opts.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) => {
      clearInterval(timer);
      reject(
        new InputError(
          `cannot serve the page on ${host} port ${opts.port ?? 0}: ${err.code ?? err.message} (see --listen, --port)`,
          { cause: err },
        ),
      );
    });
    server.listen(opts.port ?? 0, host, () => resolve());
  });
  server.on('error', (err) => log.error({ err }, 'live server: listening socket failed'));
  const { port } = server.address() as AddressInfo;
  const shown = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${shown}:${port}/?token=${token}`,
    token,
    stats: async () => {
      const sockets = await new Promise<number>((resolve) => server.getConnections((_e, n) => resolve(n)));
      return { sockets, ...streams.stats() };
    },
    close: async () => {
      clearInterval(timer);
      streams.endAll();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** One route: the method it answers and how. */
interface Route {
  method: 'GET' | 'POST';
  serve: (req: IncomingMessage, res: ServerResponse) => void;
}

/** A POST route for a page's action: same origin only (403), then `act`: 204 done, 409 refused now, 400 its reason. */
function action(act: (query: URLSearchParams) => boolean | string): Route {
  return {
    method: 'POST',
    serve: (req, res) => {
      if (!isSameOrigin(req)) return deny(res, 403, 'forbidden: cross-origin request refused');
      const done = act(readTarget(req.url).query);
      if (typeof done === 'string') return deny(res, 400, done);
      if (!done) return deny(res, 409, 'not now: a kill or its restore is already under way');
      res.writeHead(204, STATIC_HEADERS);
      res.end();
    },
  };
}

function deny(res: ServerResponse, code: number, text: string): void {
  res.writeHead(code, { ...STATIC_HEADERS, 'Content-Type': 'text/plain; charset=utf-8' });
  res.end(`${text}\n`);
}

/** True when `req` says a body follows (its length, or chunks). */
function hasBody(req: IncomingMessage): boolean {
  const len = req.headers['content-length'];
  return (len !== undefined && len !== '0') || req.headers['transfer-encoding'] !== undefined;
}

function headerText(v: string | string[] | undefined): string | null {
  return typeof v === 'string' ? v : null;
}
