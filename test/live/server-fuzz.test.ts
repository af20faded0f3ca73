// Issue #30: a seeded fuzz of the live server in-process: a few hundred generated hostile requests (raw bytes over
// node:net: bad methods, unparsable targets, broken framing, control bytes, huge fields, some with the real token),
// several at a time. The server must answer or close each, never throw (no 500, no crash of this process), and serve
// an authorized request after every batch. SOAK_FUZZ_SEED and SOAK_FUZZ_N replay another seed or run more.
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLiveServer, type LiveServer } from '../../harness/live/server.js';
import { fuzzRequests } from '../helpers/http-fuzz.js';
import { rawRequest } from '../helpers/raw-http.js';

const SEED = Number(process.env.SOAK_FUZZ_SEED ?? 30);
const N = Number(process.env.SOAK_FUZZ_N ?? 300);
const BATCH = 50;
const AT_ONCE = 8;

describe(`live server fuzz (seed ${SEED}, ${N} requests)`, () => {
  let server: LiveServer;
  let port: number;
  const logs: { level: number; msg: string }[] = [];
  const kills = { n: 0 };

  beforeAll(async () => {
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        logs.push(JSON.parse(chunk.toString()) as { level: number; msg: string });
        done();
      },
    });
    server = await startLiveServer({
      page: (nonce) => `<p nonce="${nonce}">page</p>`,
      snapshot: () => ({ kills: kills.n }),
      onKill: () => ++kills.n > 0,
      log: pino({ level: 'debug' }, sink),
      // small timeouts: a request cut short is ended by the server in well under a second
      limits: { headersTimeoutMs: 1000, requestTimeoutMs: 1500, keepAliveTimeoutMs: 200, checkEveryMs: 50 },
    });
    port = Number(new URL(server.url).port);
  });

  afterAll(async () => {
    await server.close();
  });

  it('answers or closes every request, never fails one, and keeps serving', async () => {
    const requests = fuzzRequests(SEED, N, port, server.token);
    const statuses = new Map<number, number>();
    for (let b = 0; b < requests.length; b += BATCH) {
      const batch = requests.slice(b, b + BATCH);
      await Promise.all(
        Array.from({ length: AT_ONCE }, async () => {
          for (let r = batch.shift(); r; r = batch.shift()) {
            const reply = await rawRequest(port, r.bytes, { splits: r.splits });
            statuses.set(reply.status, (statuses.get(reply.status) ?? 0) + 1);
          }
        }),
      );
      const ok = await rawRequest(port, `GET /?token=${server.token} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`);
      expect(ok.status, `after request ${b + BATCH}`).toBe(200);
    }
    const seen = Object.fromEntries([...statuses].sort(([a], [b]) => a - b));
    expect(statuses.get(500), JSON.stringify(seen)).toBeUndefined();
    expect(logs.filter((l) => l.level >= 50)).toEqual([]);
    // the generator reaches the routes, not only the parser's refusals
    for (const code of [200, 204, 400, 403, 404, 405])
      expect(statuses.get(code) ?? 0, `${code} in ${JSON.stringify(seen)}`).toBeGreaterThan(0);
  });
});
