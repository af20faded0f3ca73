// Issue #30, done-when 3: a real `soak demo` (process target, the default 100 ms checkpoint cadence) and a real
// `soak watch` on its run, attacked over real sockets: unparsable request targets (`GET //` crashed both before),
// a 1 MB header, a byte-at-a-time client, unknown methods, malformed HTTP, a body on POST /kill, a storm of POST /kill,
// a flood of event-stream clients that never read. Both keep serving; then Ctrl-C ends the run with run-end in its
// journal, no lock left in the store's locks/ and no runner.lock in the run folder. Every wait is on an observed answer,
// event or kernel count.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { execaNode, type ResultPromise } from 'execa';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { LIVE_LIMITS } from '../../harness/live/limits.js';
import { RUN_LOCK_FILE } from '../../harness/run/run-lock.js';
import { describeResult } from '../helpers/cli.js';
import { cliPath } from '../helpers/paths.js';
import { establishedOn, rssBytes, until } from '../helpers/proc-stat.js';
import { rawRequest, readEvents, stuckClients } from '../helpers/raw-http.js';

/** A live server under attack: its process, port, token and page URL. */
interface Live {
  proc: ResultPromise;
  out: () => string;
  url: string;
  port: number;
  token: string;
}

/** Every CLI process the tests started, ended by afterAll if a test failed before it could end them. */
const started: ResultPromise[] = [];

async function startLive(args: string[], cwd: string): Promise<Live> {
  const proc = execaNode(cliPath, args, { cwd, reject: false, timeout: 600_000, env: { CI: '1' } });
  started.push(proc);
  let out = '';
  proc.stdout.on('data', (d: Buffer) => (out += d.toString()));
  await new Promise<void>((resolve, reject) => {
    proc.stdout.on('data', () => {
      if (/^open: \S+$/m.test(out)) resolve();
    });
    void proc.then((r) => reject(new Error(`soak ${args[0]} ended before printing a URL\n${describeResult(r)}`)));
  });
  const url = /^open: (\S+)$/m.exec(out)![1]!;
  const u = new URL(url);
  return { proc, out: () => out, url, port: Number(u.port), token: u.searchParams.get('token')! };
}

/** One raw request line + Host header, closing after the answer. */
const req = (line: string, port: number, extra = ''): string =>
  `${line}\r\nHost: 127.0.0.1:${port}\r\n${extra}Connection: close\r\n\r\n`;

/** A live server answers an authorized GET of its page. */
async function serves(live: Live): Promise<void> {
  const r = await rawRequest(live.port, req(`GET /?token=${live.token} HTTP/1.1`, live.port));
  expect(r.status, r.text.slice(0, 200)).toBe(200);
  expect(live.proc.exitCode).toBeNull();
}

describe('soak demo and soak watch under hostile requests', () => {
  let dir: string;
  let demo: Live;
  let watch: Live;
  let runDir: string;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'soak-live-hostile-'));
    demo = await startLive(['demo', '--out', 'runs'], dir);
    runDir = /run folder (\S+)/.exec(demo.out())![1]!;
    watch = await startLive(['watch', runDir], dir);
  });

  afterAll(async () => {
    // a test that failed midway: end them as Ctrl-C would, so the session's processes go before the folder does
    for (const p of started) if (p.exitCode === null) p.kill('SIGTERM');
    await Promise.all(started);
    await rm(dir, { recursive: true, force: true, maxRetries: 5 });
  });

  describe.each([
    ['demo', () => demo],
    ['watch', () => watch],
  ])('soak %s', (name, live) => {
    test('GET // without a token: 403, and the server keeps serving', async () => {
      const l = live();
      const r = await rawRequest(l.port, `GET // HTTP/1.1\r\nHost: 127.0.0.1:${l.port}\r\n\r\n`);
      expect(r.status, r.text.slice(0, 200)).toBe(403);
      await serves(l);
    });

    test('unparsable and unusual request targets get an answer (never a crash); the token still comes first', async () => {
      const l = live();
      const t = l.token;
      const cases: [string, number][] = [
        ['GET //x HTTP/1.1', 403],
        ['GET /% HTTP/1.1', 403],
        ['GET /%zz?token=%zz HTTP/1.1', 403],
        ['GET http://[ HTTP/1.1', 403],
        ['GET http://[/?token=x HTTP/1.1', 403],
        ['OPTIONS * HTTP/1.1', 403],
        [`GET //?token=${t} HTTP/1.1`, 404],
        [`GET //x?token=${t} HTTP/1.1`, 404],
        [`GET /%?token=${t} HTTP/1.1`, 404],
        [`GET http://127.0.0.1:${l.port}/?token=${t} HTTP/1.1`, 200], // absolute-form, as a proxy sends it
        [`GET /?token=${t}&token=${t} HTTP/1.1`, 200],
        [`CONNECT 127.0.0.1:${l.port} HTTP/1.1`, 405], // authority-form
        [`OPTIONS /?token=${t} HTTP/1.1`, 405],
        [`PROPFIND /?token=${t} HTTP/1.1`, 405],
        [`DELETE /events?token=${t} HTTP/1.1`, 405],
        [`GET /kill?token=${t} HTTP/1.1`, name === 'demo' ? 405 : 404],
        [`POST /?token=${t} HTTP/1.1`, 405],
        [`GET /nothing?token=${t} HTTP/1.1`, 404],
      ];
      for (const [line, status] of cases) {
        const r = await rawRequest(l.port, req(line, l.port));
        expect(r.status, `${line}\n${r.text.slice(0, 200)}`).toBe(status);
      }
      await serves(l);
    });

    test('malformed HTTP: 400 and the connection closed; a 1 MB header: 431', async () => {
      const l = live();
      for (const bytes of [
        'FOO / HTTP/1.1\r\n\r\n',
        '\x00\x01\x02\r\n\r\n',
        'GET / HTTP/9.9\r\n\r\n',
        'GET / HTTP/1.1\r\n\r\n', // no Host
        'GET / HTTP/1.1\r\nHost: a\r\nno colon here\r\n\r\n',
        'POST /kill HTTP/1.1\r\nHost: a\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n',
        'POST /kill HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n',
      ]) {
        const r = await rawRequest(l.port, bytes, { untilClose: true });
        expect(r.status, JSON.stringify(bytes)).toBe(400);
        expect(r.closedByServer).toBe(true);
      }
      const huge = await rawRequest(
        l.port,
        req(`GET /?token=${l.token} HTTP/1.1`, l.port, `X-Big: ${'a'.repeat(1 << 20)}\r\n`),
      );
      expect(huge.status).toBe(431);
      await serves(l);
    });

    test('a byte-at-a-time client is served, and others are served meanwhile', async () => {
      const l = live();
      const slow = rawRequest(l.port, req(`GET /?token=${l.token} HTTP/1.1`, l.port), { oneByteAtATime: true });
      await serves(l);
      expect((await slow).status).toBe(200);
    });

    test('a flood of event-stream clients that never read: connections capped, memory bounded, then it serves', async () => {
      const l = live();
      const pid = l.proc.pid!;
      const before = rssBytes(pid);
      const flood = await stuckClients(l.port, `/events?token=${l.token}`, 300);
      try {
        // the kernel holds every connection at first; the server then keeps at most its cap and closes the rest
        await until(() => establishedOn(l.port) <= LIVE_LIMITS.maxSockets, `${name}'s connections to fall to its cap`);
        expect(rssBytes(pid) - before).toBeLessThan(200 * 1024 * 1024);
        expect(l.proc.exitCode).toBeNull();
      } finally {
        for (const s of flood) s.destroy();
      }
      await until(() => establishedOn(l.port) === 0, `${name} to see the flood go`);
      await serves(l);
    });
  });

  test('demo: a body on POST /kill is not read (the connection closes); a storm of 1000 kills starts one per session', async () => {
    const own = `Origin: http://127.0.0.1:${demo.port}\r\n`;
    const body = await rawRequest(
      demo.port,
      `POST /kill?token=${demo.token} HTTP/1.1\r\nHost: 127.0.0.1:${demo.port}\r\nContent-Length: 1000000000\r\n\r\n${'x'.repeat(65536)}`,
      { untilClose: true },
    );
    expect(body.status).toBe(403); // no Origin: refused, and the gigabyte it announced is never waited for
    expect(body.closedByServer).toBe(true);
    const events = readEvents(demo.url);
    try {
      type Snap = { state: string; counts: { interruptions: number; resumed: number; failed: number } };
      const up = (s: Snap) => ['running', 'checkpointing', 'verified'].includes(s.state);
      const before = await events.until<Snap>(up);
      // 1000 requests from 16 clients at once (a client per connection, under the server's connection cap)
      const statuses: number[] = [];
      const kill = req(`POST /kill?token=${demo.token} HTTP/1.1`, demo.port, own);
      await Promise.all(
        Array.from({ length: 16 }, async () => {
          while (statuses.length < 1000) statuses.push((await rawRequest(demo.port, kill)).status);
        }),
      );
      const accepted = statuses.filter((s) => s === 204).length;
      expect(accepted).toBeGreaterThanOrEqual(1);
      expect(statuses.filter((s) => s !== 204 && s !== 409)).toEqual([]);
      // every accepted kill is one interruption, journaled and resumed: none of the others started a kill
      const after = await events.until<Snap>(
        (s) =>
          up(s) &&
          s.counts.resumed + s.counts.failed === s.counts.interruptions &&
          s.counts.interruptions >= before.counts.interruptions + accepted,
      );
      expect(after.counts.interruptions - before.counts.interruptions).toBe(accepted);
      expect(after.counts.failed).toBe(0);
    } finally {
      events.close();
    }
    await serves(demo);
  });

  test('demo on an address it cannot listen on: bad input (3) before any run folder, lock or session exists', async () => {
    const r = await execaNode(cliPath, ['demo', '--out', 'runs-bad', '--listen', '203.0.113.1'], {
      cwd: dir,
      reject: false,
      timeout: 120_000,
      env: { CI: '1' },
    });
    expect(r.exitCode, describeResult(r)).toBe(3);
    expect(r.stderr).toMatch(/cannot serve the page on 203\.0\.113\.1 port 0: EADDRNOTAVAIL/);
    expect(existsSync(path.join(dir, 'runs-bad'))).toBe(false);
  });

  test('Ctrl-C ends both: the run has run-end, the store no lock left, the run folder no runner lock', async () => {
    expect(existsSync(path.join(runDir, RUN_LOCK_FILE))).toBe(true); // the demo held it while it ran
    // what a host SIGKILLed while writing its writer lock leaves (a kill can land on its first checkpoint)
    const dead = spawnSync('true').pid;
    const torn = `.writer-${dead}-0a1b2c3d4e5f.json.tmp-${dead}-12345-0123456789abcdef`;
    writeFileSync(path.join(runDir, 'store', 'locks', torn), '{"kind":"wri');
    demo.proc.kill('SIGINT');
    watch.proc.kill('SIGINT');
    const [d, w] = await Promise.all([demo.proc, watch.proc]);
    expect(d.exitCode, describeResult(d)).toBe(0);
    expect(w.exitCode, describeResult(w)).toBe(0);
    expect(String(d.stderr) + String(w.stderr)).not.toMatch(/TypeError|ERR_/);
    const lines = readFileSync(path.join(runDir, 'journal.ndjson'), 'utf8').trim().split('\n');
    expect(JSON.parse(lines.at(-1)!)).toMatchObject({ type: 'run-end', status: 'complete' });
    expect(readdirSync(path.join(runDir, 'store', 'locks'))).toEqual([]);
    expect(readdirSync(runDir).filter((f) => f.startsWith(RUN_LOCK_FILE))).toEqual([]);
  });
});
