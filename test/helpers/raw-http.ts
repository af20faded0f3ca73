// Raw HTTP over node:net for tests that send what no HTTP client would: bytes as given (all at once, or one at a time),
// read until the server closes or a whole response has come. Waits are on observed bytes and socket events only.
import net from 'node:net';

/** What came back on one connection: the status (0 if none came), the raw text, and whether the server closed it. */
export interface RawReply {
  status: number;
  text: string;
  /** The server ended or reset the connection (not the test). */
  closedByServer: boolean;
}

/** How long a test waits for any answer before it fails instead of hanging (a guard, not a timed assertion). */
const GUARD_MS = 60_000;

/** True when `text` holds one whole response (headers, then a body of Content-Length or chunked up to its end). */
function complete(text: string): boolean {
  const end = text.indexOf('\r\n\r\n');
  if (end < 0) return false;
  const head = text.slice(0, end).toLowerCase();
  const body = text.slice(end + 4);
  const len = /\r\ncontent-length: *(\d+)/.exec(head);
  if (head.includes('\r\ncontent-type: text/event-stream')) return true; // a stream never ends: its start is the answer
  if (len) return Buffer.byteLength(body, 'latin1') >= Number(len[1]);
  if (head.includes('\r\ntransfer-encoding: chunked')) return body.includes('0\r\n\r\n');
  return /^http\/1\.1 (1\d\d|204|304)/.test(head);
}

/**
 * Open a connection to 127.0.0.1:`port`, write `bytes` (cut at `splits`, or with `oneByteAtATime` into single bytes,
 * each piece written once the one before was flushed), and resolve with what came back once a whole response came
 * (with `untilClose`: once the server closed the connection).
 */
export function rawRequest(
  port: number,
  bytes: string | Buffer,
  opts: { oneByteAtATime?: boolean; splits?: readonly number[]; untilClose?: boolean } = {},
): Promise<RawReply> {
  const data = typeof bytes === 'string' ? Buffer.from(bytes, 'latin1') : bytes;
  return new Promise((resolve, reject) => {
    const sock = net.connect(port, '127.0.0.1');
    sock.setNoDelay(true); // each byte its own segment, not gathered by Nagle
    let text = '';
    let byUs = false;
    const guard = setTimeout(() => {
      byUs = true;
      sock.destroy();
      reject(new Error(`no answer from port ${port} within ${GUARD_MS} ms; got ${JSON.stringify(text.slice(0, 200))}`));
    }, GUARD_MS);
    const finish = (closedByServer: boolean): void => {
      clearTimeout(guard);
      const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(text)?.[1] ?? 0);
      resolve({ status, text, closedByServer });
    };
    sock.on('data', (d: Buffer) => {
      text += d.toString('latin1');
      if (!opts.untilClose && complete(text)) {
        byUs = true;
        sock.destroy();
        finish(false);
      }
    });
    sock.on('error', () => {}); // a reset is a close, seen below
    sock.on('close', () => {
      if (!byUs) finish(true);
    });
    // where the bytes are cut into separate writes, each sent once the one before has been flushed
    const cuts = opts.oneByteAtATime ? Array.from({ length: data.length }, (_, i) => i + 1) : [...(opts.splits ?? [])];
    cuts.push(data.length);
    sock.on('connect', () => {
      let from = 0;
      const next = (): void => {
        const to = cuts.shift();
        if (to === undefined || sock.destroyed) return;
        const piece = data.subarray(from, Math.max(from, to));
        from = Math.max(from, to);
        if (piece.length === 0) return next();
        sock.write(piece, () => setImmediate(next));
      };
      next();
    });
  });
}

/**
 * Open `n` connections that each ask for `path` and then never read (paused sockets): what a stuck or hostile event
 * stream client does. Resolves once each has connected; the caller destroys them.
 */
export async function stuckClients(port: number, path: string, n: number): Promise<net.Socket[]> {
  const socks = await Promise.all(
    Array.from(
      { length: n },
      () =>
        new Promise<net.Socket>((resolve) => {
          const s = net.connect(port, '127.0.0.1', () => {
            s.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`);
            s.pause();
            resolve(s);
          });
          s.on('error', () => {}); // refused or dropped by the server's cap: that is what is being tested
          s.on('close', () => resolve(s));
        }),
    ),
  );
  return socks;
}

/** A reading event-stream client: the snapshots a live server pushes, parsed, and a wait for one that matches. */
export interface EventReader {
  /** Resolves with the first snapshot (from now on) for which `pred` holds. */
  until<T>(pred: (snapshot: T) => boolean): Promise<T>;
  close(): void;
}

/** Connect to a live page's /events (the page's URL with its token) and read every snapshot it pushes. */
export function readEvents(pageUrl: string): EventReader {
  const u = new URL(pageUrl);
  const waiters: { pred: (s: unknown) => boolean; resolve: (s: unknown) => void }[] = [];
  let buf = '';
  const sock = net.connect(Number(u.port), u.hostname, () =>
    sock.write(`GET /events${u.search} HTTP/1.1\r\nHost: ${u.host}\r\n\r\n`),
  );
  sock.setEncoding('utf8');
  sock.on('error', () => {});
  sock.on('data', (d: string) => {
    buf += d;
    for (let m = /^data: (.*)\n/m.exec(buf); m; m = /^data: (.*)\n/m.exec(buf)) {
      buf = buf.slice(m.index + m[0].length);
      const snap = JSON.parse(m[1]!) as unknown;
      for (const w of waiters.splice(0)) {
        if (w.pred(snap)) w.resolve(snap);
        else waiters.push(w);
      }
    }
  });
  return {
    until: <T>(pred: (s: T) => boolean) =>
      new Promise<T>((resolve, reject) => {
        const guard = setTimeout(
          () => reject(new Error(`no matching event from ${u.origin} in ${GUARD_MS} ms`)),
          GUARD_MS,
        );
        waiters.push({
          pred: pred as (s: unknown) => boolean,
          resolve: (s) => {
            clearTimeout(guard);
            resolve(s as T);
          },
        });
      }),
    close: () => sock.destroy(),
  };
}
