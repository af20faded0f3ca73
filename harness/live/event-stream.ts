// The live server's Server-Sent Events clients: each gets every update while it reads; one that stops reading is
// dropped once its unsent output passes a bound, so a stuck or hostile reader cannot make the server's memory grow.
import type { ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Logger } from '../core/logger.js';

/** The open event streams of one live server. */
export class EventStreams {
  private readonly clients = new Set<ServerResponse>();
  private readonly sockets = new WeakSet<Duplex>();

  constructor(
    private readonly maxBufferBytes: number,
    private readonly log: Logger,
  ) {}

  /** Start an event stream on `res` (its headers already set), beginning with `first` when there is one. */
  open(res: ServerResponse, first: string | null): void {
    res.on('error', (err) => this.log.debug({ err }, 'live server: event stream failed'));
    res.write('retry: 500\n\n');
    if (first !== null) res.write(first);
    this.clients.add(res);
    if (res.socket) this.sockets.add(res.socket);
    res.on('close', () => this.clients.delete(res));
  }

  /** True when an event stream is under way on `socket`. */
  streaming(socket: Duplex): boolean {
    return this.sockets.has(socket);
  }

  /** Send `line` to every client, dropping each one that has more than the bound still unsent. */
  send(line: string): void {
    for (const c of this.clients) {
      if (c.writableLength <= this.maxBufferBytes) {
        c.write(line);
        continue;
      }
      this.log.warn(
        { buffered: c.writableLength, max: this.maxBufferBytes },
        'live server: an event stream client stopped reading; dropped',
      );
      this.clients.delete(c);
      c.destroy();
    }
  }

  /** How many streams are open, and the bytes they hold unsent in the server (beyond the kernel's buffers). */
  stats(): { streams: number; bufferedBytes: number } {
    let bufferedBytes = 0;
    for (const c of this.clients) bufferedBytes += c.writableLength;
    return { streams: this.clients.size, bufferedBytes };
  }

  get size(): number {
    return this.clients.size;
  }

  /** End every stream (the server is closing). */
  endAll(): void {
    for (const c of this.clients) c.end();
    this.clients.clear();
  }
}
