// The live server's guards on real sockets: the token on every request, the CSP nonce, the SSE stream, and the
// same-origin rule on the one POST (a cross-site form or fetch cannot kill the session).
import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { contentSecurityPolicy, startLiveServer, type LiveServer } from '../../harness/live/server.js';
import { isSameOrigin } from '../../harness/live/origin.js';

interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** One request with exactly these headers (fetch would add or forbid some, e.g. Origin). */
function send(url: string, method: string, headers: Record<string, string> = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers }, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => {
        body += d.toString();
        if (res.headers['content-type'] === 'text/event-stream' && body.includes('\n\n')) res.destroy();
      });
      res.on('close', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

let server: LiveServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function start(kills: { n: number }): Promise<LiveServer> {
  server = await startLiveServer({
    page: (nonce) => `<p>page</p><script nonce="${nonce}"></script>`,
    snapshot: () => ({ step: 7, text: '<script>x</script>' }),
    onKill: () => {
      kills.n++;
      return true;
    },
  });
  return server;
}

describe('live server', () => {
  it('binds 127.0.0.1 on a random port and puts a long random token in the URL', async () => {
    const s = await start({ n: 0 });
    expect(s.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]{32}$/);
  });

  it('refuses a missing or wrong token with 403 on every path', async () => {
    const s = await start({ n: 0 });
    const base = new URL(s.url);
    for (const p of ['/', '/events', '/kill', '/nothing']) {
      expect((await send(`${base.origin}${p}`, 'GET')).status, p).toBe(403);
      expect((await send(`${base.origin}${p}?token=${s.token.slice(1)}x`, 'GET')).status, p).toBe(403);
    }
  });

  it('serves the page with a CSP whose nonce is the one on its script, and no-store, nosniff, no-referrer', async () => {
    const s = await start({ n: 0 });
    const r = await send(s.url, 'GET');
    expect(r.status).toBe(200);
    const nonce = /nonce="([^"]+)"/.exec(r.body)?.[1];
    expect(nonce).toBeDefined();
    expect(r.headers['content-security-policy']).toBe(contentSecurityPolicy(nonce!));
    expect(r.headers['content-security-policy']).toContain("default-src 'none'");
    expect(r.headers['cache-control']).toBe('no-store');
    expect(r.headers['x-content-type-options']).toBe('nosniff');
    expect(r.headers['referrer-policy']).toBe('no-referrer');
    const again = await send(s.url, 'GET');
    expect(/nonce="([^"]+)"/.exec(again.body)?.[1]).not.toBe(nonce); // one nonce per page
  });

  it('streams the snapshot as JSON over Server-Sent Events', async () => {
    const s = await start({ n: 0 });
    const r = await send(s.url.replace('/?', '/events?'), 'GET');
    const data = /^data: (.+)$/m.exec(r.body)?.[1];
    expect(JSON.parse(data!)).toEqual({ step: 7, text: '<script>x</script>' });
  });

  it('POST /kill: done only for the same origin; a cross-site or origin-less request gets 403', async () => {
    const kills = { n: 0 };
    const s = await start(kills);
    const kill = s.url.replace('/?', '/kill?');
    const own = new URL(s.url).origin;
    expect((await send(kill, 'POST', { Origin: 'http://evil.example', 'Sec-Fetch-Site': 'cross-site' })).status).toBe(
      403,
    );
    expect((await send(kill, 'POST', { Origin: own, 'Sec-Fetch-Site': 'cross-site' })).status).toBe(403);
    expect((await send(kill, 'POST')).status).toBe(403);
    expect((await send(kill.replace(/token=[^&]+/, 'token=bad'), 'POST', { Origin: own })).status).toBe(403);
    expect(kills.n).toBe(0);
    expect((await send(kill, 'POST', { Origin: own, 'Sec-Fetch-Site': 'same-origin' })).status).toBe(204);
    expect(kills.n).toBe(1);
  });

  it('POST /kill-host (a page of many sessions): the same guards; 409 refused now, 400 with its reason; 404 without it', async () => {
    const s0 = await start({ n: 0 });
    expect((await send(s0.url.replace('/?', '/kill-host?'), 'POST', { Origin: new URL(s0.url).origin })).status).toBe(
      404,
    );
    await s0.close();
    const seen: string[] = [];
    let answer: boolean | string = true;
    server = await startLiveServer({
      page: () => '<p>grid</p>',
      snapshot: () => ({}),
      onKill: (query) => (seen.push(`kill ${query.get('session')}`), answer),
      onKillHost: () => (seen.push('host'), answer),
    });
    const own = new URL(server.url).origin;
    const host = server.url.replace('/?', '/kill-host?');
    expect((await send(`${own}/kill-host`, 'POST', { Origin: own })).status).toBe(403);
    expect((await send(host, 'POST', { Origin: 'http://evil.example', 'Sec-Fetch-Site': 'cross-site' })).status).toBe(
      403,
    );
    expect((await send(host, 'POST')).status).toBe(403);
    expect(seen).toEqual([]);
    expect((await send(host, 'POST', { Origin: own, 'Sec-Fetch-Site': 'same-origin' })).status).toBe(204);
    expect((await send(`${server.url.replace('/?', '/kill?')}&session=2`, 'POST', { Origin: own })).status).toBe(204);
    answer = false;
    expect((await send(host, 'POST', { Origin: own })).status).toBe(409);
    answer = 'session: expected a session index from 0 to 2, got "9"';
    const bad = await send(`${server.url.replace('/?', '/kill?')}&session=9`, 'POST', { Origin: own });
    expect([bad.status, bad.body]).toEqual([400, `${answer}\n`]);
    expect(seen).toEqual(['host', 'kill 2', 'host', 'kill 9']);
  });
});

describe('isSameOrigin', () => {
  const req = (headers: Record<string, string>) => ({ headers });
  it('wants Origin equal to http://<Host>, and Sec-Fetch-Site same-origin when sent', () => {
    expect(isSameOrigin(req({ host: 'a:1', origin: 'http://a:1', 'sec-fetch-site': 'same-origin' }))).toBe(true);
    expect(isSameOrigin(req({ host: 'a:1', origin: 'http://a:1' }))).toBe(true);
    expect(isSameOrigin(req({ host: 'a:1', origin: 'http://a:2' }))).toBe(false);
    expect(isSameOrigin(req({ host: 'a:1', origin: 'null' }))).toBe(false);
    expect(isSameOrigin(req({ host: 'a:1', origin: 'http://a:1', 'sec-fetch-site': 'same-site' }))).toBe(false);
    expect(isSameOrigin(req({ host: 'a:1' }))).toBe(false);
  });
});
