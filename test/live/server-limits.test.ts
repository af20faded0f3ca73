// The live server's bounds on real sockets, in-process with small limits: a failing route answers 500 and the server
// goes on; a request too slow to come is cut off (408) while an event stream outlives the request timeout; a reader
// that stopped reading is dropped before its buffered updates pass the bound; connections over the cap are closed;
// a body is never read; a malformed request inside an event stream closes it without writing into it. Waits are on
// observed answers, closes and log lines, never on a sleep.
import { once } from 'node:events';
import net from 'node:net';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { InputError } from '../../harness/core/errors.js';
import { startLiveServer, type LiveServer, type LiveServerOptions } from '../../harness/live/server.js';
import { establishedOn, until } from '../helpers/proc-stat.js';
import { rawRequest, readEvents, stuckClients } from '../helpers/raw-http.js';

/** Log lines the server wrote, parsed. */
type Line = { level: number; msg: string } & Record<string, unknown>;

let server: LiveServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function start(over: Partial<LiveServerOptions> = {}): Promise<{ s: LiveServer; port: number; logs: Line[] }> {
  const logs: Line[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      logs.push(JSON.parse(chunk.toString()) as Line);
      done();
    },
  });
  server = await startLiveServer({
    page: (nonce) => `<p nonce="${nonce}">page</p>`,
    snapshot: () => ({ step: 1 }),
    log: pino({ level: 'debug' }, sink),
    ...over,
  });
  return { s: server, port: Number(new URL(server.url).port), logs };
}

const get = (path: string, port: number, token: string, extra = ''): string =>
  `GET ${path}${path.includes('?') ? '&' : '?'}token=${token} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n${extra}\r\n`;

describe('live server limits', () => {
  it('a route that throws answers 500, is logged, and the server goes on serving', async () => {
    let fail = true;
    const { s, port, logs } = await start({
      page: () => {
        if (fail) throw new Error('page broke');
        return '<p>ok</p>';
      },
      onKill: () => {
        throw new Error('kill broke');
      },
    });
    expect((await rawRequest(port, get('/', port, s.token))).status).toBe(500);
    const own = `Origin: http://127.0.0.1:${port}\r\n`;
    const kill = `POST /kill?token=${s.token} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n${own}\r\n`;
    expect((await rawRequest(port, kill)).status).toBe(500);
    expect(logs.filter((l) => l.msg === 'live server: a request failed')).toHaveLength(2);
    fail = false;
    expect((await rawRequest(port, get('/', port, s.token))).status).toBe(200);
  });

  it('a snapshot that throws skips its updates (logged once) and the stream stays open', async () => {
    let n = 0;
    const { s, logs } = await start({
      intervalMs: 5,
      snapshot: () => {
        if (++n % 2 === 0) throw new Error('state unreadable');
        return { n };
      },
    });
    const events = readEvents(s.url);
    try {
      await events.until<{ n: number }>((e) => e.n >= 9);
    } finally {
      events.close();
    }
    expect(logs.filter((l) => l.msg === 'live server: the page state could not be read').length).toBeGreaterThan(0);
  });

  it('a request too slow to come (or none at all) is cut off with 408; an event stream outlives the timeouts', async () => {
    const { s, port } = await start({ limits: { headersTimeoutMs: 300, requestTimeoutMs: 600, checkEveryMs: 50 } });
    const events = readEvents(s.url);
    try {
      await events.until(() => true);
      const [slow, idle, body] = await Promise.all([
        rawRequest(port, `GET /?token=${s.token} HTTP/1.1\r\nHo`, { untilClose: true }),
        rawRequest(port, '', { untilClose: true }),
        rawRequest(port, `POST /kill HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nab`, {
          untilClose: true,
        }),
      ]);
      expect(slow.status).toBe(408);
      expect(idle.closedByServer).toBe(true);
      expect(body.closedByServer).toBe(true);
      // the stream was open all along: it still gets updates after the slow ones were cut off
      await events.until(() => true);
      expect((await s.stats()).streams).toBe(1);
    } finally {
      events.close();
    }
  });

  it('an event stream reader that stops reading is dropped before its buffered updates pass the bound', async () => {
    const maxStreamBufferBytes = 512 * 1024;
    const big = 'x'.repeat(256 * 1024);
    let tick = 0;
    const { s, port, logs } = await start({
      intervalMs: 5,
      snapshot: () => ({ tick: ++tick, big }),
      limits: { maxStreamBufferBytes },
    });
    const [stuck] = await stuckClients(port, `/events?token=${s.token}`, 1);
    const reader = readEvents(s.url);
    // per stuck stream at most the bound plus the one update written before it was checked (and the reader's own)
    const bound = 2 * (maxStreamBufferBytes + big.length + 1024);
    let most = 0;
    const dropped = (): boolean =>
      logs.some((l) => l.msg === 'live server: an event stream client stopped reading; dropped');
    try {
      // sampled at every update the reading client gets, until the stuck one is gone (or the bound is passed)
      await reader.until(() => {
        void s.stats().then((st) => (most = Math.max(most, st.bufferedBytes)));
        return dropped() || most > bound;
      });
      expect(most).toBeLessThanOrEqual(bound);
      expect(dropped()).toBe(true);
      await until(() => establishedOn(port) === 1, 'the stuck client to be closed by the server');
      expect((await s.stats()).streams).toBe(1); // the reader, still served
      await reader.until(() => true);
    } finally {
      reader.close();
      stuck!.destroy();
    }
  });

  it('connections beyond the cap are closed as they come; once they go, requests are served again', async () => {
    const { s, port, logs } = await start({ limits: { maxSockets: 5 } });
    const flood = await stuckClients(port, `/events?token=${s.token}`, 40);
    try {
      await until(() => establishedOn(port) <= 5, 'the server to keep at most 5 connections');
      expect((await s.stats()).sockets).toBeLessThanOrEqual(5);
      expect(logs.some((l) => l.msg === 'live server: connection refused, too many open')).toBe(true);
    } finally {
      for (const c of flood) c.destroy();
    }
    await until(() => establishedOn(port) === 0, 'the flood to be gone');
    expect((await rawRequest(port, get('/', port, s.token))).status).toBe(200);
  });

  it('a client that sends requests and never reads the answers is closed once idle (no unbounded queue)', async () => {
    // headers and request timeouts out of reach: only the idle bound can end it
    const { s, port } = await start({
      limits: { idleTimeoutMs: 300, headersTimeoutMs: 120_000, requestTimeoutMs: 120_000 },
    });
    const one = `GET /?token=${s.token} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`;
    const sock = net.connect(port, '127.0.0.1');
    sock.on('error', () => {});
    sock.pause(); // never reads: the answers pile up until node:http stops parsing, then nothing moves
    const flood = Buffer.from(one.repeat(20_000));
    const writing = (): void => {
      while (!sock.destroyed && sock.write(flood));
    };
    sock.on('connect', writing);
    sock.on('drain', writing);
    await once(sock, 'connect');
    await until(() => establishedOn(port) === 0, 'the server to close the stuck connection');
    expect((await s.stats()).sockets).toBe(0);
    sock.destroy();
    expect((await rawRequest(port, get('/', port, s.token))).status).toBe(200);
  });

  it('a body is never read: the answer comes at once and the connection closes', async () => {
    const kills = { n: 0 };
    const { s, port } = await start({ onKill: () => ++kills.n > 0 });
    const own = `Origin: http://127.0.0.1:${port}\r\n`;
    const head = `POST /kill?token=${s.token} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n${own}`;
    const announced = await rawRequest(port, `${head}Content-Length: 1000000000\r\n\r\n${'x'.repeat(1 << 20)}`, {
      untilClose: true,
    });
    expect(announced.status).toBe(204);
    expect(announced.closedByServer).toBe(true);
    const chunked = await rawRequest(
      port,
      `${head}Transfer-Encoding: chunked\r\n\r\n100000\r\n${'y'.repeat(1 << 16)}`,
      {
        untilClose: true,
      },
    );
    expect(chunked.status).toBe(204);
    expect(chunked.closedByServer).toBe(true);
    expect(kills.n).toBe(2);
  });

  it('POST /kill refused by the demo (one under way) is 409; wrong methods 405 with Allow; unknown paths 404', async () => {
    const { s, port } = await start({ onKill: () => false });
    const own = `Origin: http://127.0.0.1:${port}\r\n`;
    const kill = await rawRequest(
      port,
      `POST /kill?token=${s.token} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n${own}\r\n`,
    );
    expect(kill.status).toBe(409);
    const put = await rawRequest(port, get('/events', port, s.token).replace(/^GET/, 'PUT'));
    expect(put.status).toBe(405);
    expect(put.text).toMatch(/\r\nAllow: GET\r\n/i);
    expect((await rawRequest(port, get('/__proto__', port, s.token))).status).toBe(404);
    expect((await rawRequest(port, get('/constructor', port, s.token))).status).toBe(404);
  });

  it('garbage inside an event stream closes the stream without a status line written into it', async () => {
    const { s, port } = await start({ intervalMs: 5 });
    const sock = net.connect(port, '127.0.0.1', () => sock.write(get('/events', port, s.token)));
    let text = '';
    let sent = false;
    await new Promise<void>((resolve) => {
      sock.on('data', (d: Buffer) => {
        text += d.toString('latin1');
        if (!sent && text.includes('data: {"step":1}')) {
          sent = true;
          sock.write('\x00garbage\r\n\r\n'); // the stream is under way: now a malformed request on it
        }
      });
      sock.on('error', () => {});
      sock.on('close', () => resolve());
    });
    expect(sent).toBe(true);
    expect(text).toMatch(/^HTTP\/1\.1 200 /);
    expect(text).not.toContain('HTTP/1.1 400');
  });

  it('an address it cannot listen on is bad input naming the address', async () => {
    const err = await startLiveServer({ host: '203.0.113.1', page: () => '', snapshot: () => null }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(InputError);
    expect((err as Error).message).toMatch(/^cannot serve the page on 203\.0\.113\.1 port 0: EADDRNOTAVAIL/);
  });
});
