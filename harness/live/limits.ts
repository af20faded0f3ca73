// The live server's bounds on what a client can hold or send: time to send a request, sockets, header size, and what
// a stuck event-stream reader may leave buffered; and its answers to what never reaches a route (malformed HTTP,
// CONNECT, connections over the cap). Nothing a client sends may make the server throw.
import type { Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Logger } from '../core/logger.js';

/** The live server's limits (tests shrink them; soak demo and soak watch use LIVE_LIMITS). */
export interface LiveLimits {
  /** A request's headers must have come whole within this, ms (a byte-at-a-time client is cut off: 408). */
  headersTimeoutMs: number;
  /** A whole request (headers and body) within this, ms. An event stream's response is not bounded by it. */
  requestTimeoutMs: number;
  /** An idle kept-alive connection is closed after this, ms. */
  keepAliveTimeoutMs: number;
  /** How often connections are checked against the two timeouts above, ms. */
  checkEveryMs: number;
  /**
   * A connection on which nothing was read or sent for this long is closed, ms: a client that stopped reading with
   * answers pending (pipelined requests, a full event stream). A live page gets an update every 100 ms.
   */
  idleTimeoutMs: number;
  /** Connections held at once; a connection beyond it is closed as it comes. */
  maxSockets: number;
  /** Request header bytes (Node answers 431 beyond it). */
  maxHeaderBytes: number;
  /** An event-stream client with more than this buffered and unsent (it stopped reading) is dropped, bytes. */
  maxStreamBufferBytes: number;
}

/**
 * The limits soak demo and soak watch serve with. A page opens its HTML and one event stream; 64 sockets leave room
 * for a few viewers while a flood costs at most 64 x 256 KiB of buffered updates (beyond the kernel's own buffers).
 */
export const LIVE_LIMITS: LiveLimits = {
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 5_000,
  checkEveryMs: 1_000,
  idleTimeoutMs: 30_000,
  maxSockets: 64,
  maxHeaderBytes: 16 * 1024,
  maxStreamBufferBytes: 256 * 1024,
};

/** The options node:http takes at createServer for `limits`. */
export function serverOptions(limits: LiveLimits): {
  headersTimeout: number;
  requestTimeout: number;
  keepAliveTimeout: number;
  connectionsCheckingInterval: number;
  maxHeaderSize: number;
  requireHostHeader: boolean;
} {
  return {
    headersTimeout: limits.headersTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    connectionsCheckingInterval: limits.checkEveryMs,
    maxHeaderSize: limits.maxHeaderBytes,
    requireHostHeader: true,
  };
}

/** Status lines for the errors node:http reports on a connection before any route sees a request. */
function statusFor(code: string | undefined): string {
  if (code === 'HPE_HEADER_OVERFLOW') return '431 Request Header Fields Too Large';
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return '408 Request Timeout';
  return '400 Bad Request';
}

/** Close `socket` after one bodiless answer with `status` (nothing written if it cannot take it). */
function answerAndClose(socket: Duplex, status: string): void {
  socket.on('error', () => {}); // a peer gone mid-answer: it is being closed anyway
  if (socket.writable) socket.write(`HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
  socket.destroy();
}

/**
 * Cap `server`'s connections, close those idle too long, and answer what never reaches a route: malformed HTTP (400, 431, 408 for a request too
 * slow to come), CONNECT (405), each then closed. `streaming(socket)`: a response is under way on it (an event
 * stream), which a status line must not be written into: it is only closed.
 */
export function guardServer(
  server: Server,
  limits: LiveLimits,
  log: Logger,
  streaming: (socket: Duplex) => boolean,
): void {
  server.maxConnections = limits.maxSockets;
  server.setTimeout(limits.idleTimeoutMs); // no 'timeout' listener: node:http destroys the idle socket
  let dropped = 0;
  server.on('drop', () => {
    if (dropped++ % 100 === 0)
      log.warn({ dropped, maxSockets: limits.maxSockets }, 'live server: connection refused, too many open');
  });
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
    log.debug({ code: err.code }, 'live server: malformed or too slow request refused');
    if (err.code === 'ECONNRESET' || streaming(socket)) return void socket.destroy();
    answerAndClose(socket, statusFor(err.code));
  });
  server.on('connect', (_req: unknown, socket: Duplex) => answerAndClose(socket, '405 Method Not Allowed'));
}
