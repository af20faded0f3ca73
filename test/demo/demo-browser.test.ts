// End to end in Debian's Chromium against the built CLI: `soak demo` prints a URL; the page goes running; the test
// SIGKILLs the printed process group as a person would, and the page shows dead -> restoring -> verified with the
// downtime the journal has; the button does the same; a wrong token gets 403, a cross-origin POST is refused; Ctrl-C
// ends the run and `soak report` calls its interruptions typed by a person. Every wait is on observed page state.
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { request } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { execaNode, type ResultPromise } from 'execa';
import { type Browser, type Page } from 'playwright-core';
import { chromiumPresent, launchChromium } from '../helpers/chromium.js';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { cliPath } from '../helpers/paths.js';
import { describeResult, soakIn } from '../helpers/cli.js';
import { resumeRateText } from '../../harness/demo/resume-rate.js';

const ARTIFACTS = path.resolve(import.meta.dirname, '..', '..', 'test-artifacts', 'demo');
const WAIT = 90_000;
const present = chromiumPresent;

/** The journal's cycle outcomes. */
function cycles(runDir: string): { cycle: number; outcome: string; downtimeMs: number | null }[] {
  return readFileSync(path.join(runDir, 'journal.ndjson'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { type: string; cycle: number; outcome: string; downtimeMs: number | null })
    .filter((e) => e.type === 'cycle');
}

function post(url: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end();
  });
}

describe.skipIf(!present)('soak demo in headless Chromium', () => {
  let dir: string;
  let demo: ResultPromise;
  let url: string;
  let runDir: string;
  let browser: Browser | undefined;
  let page: Page;
  const problems: string[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'soak-demo-'));
    await mkdir(ARTIFACTS, { recursive: true });
    demo = execaNode(cliPath, ['demo', '--out', 'runs'], { cwd: dir, reject: false, env: { CI: '1' } });
    let out = '';
    await new Promise<void>((resolve, reject) => {
      demo.stdout!.on('data', (d: Buffer) => {
        out += d.toString();
        if (/^open: \S+$/m.test(out)) resolve();
      });
      void demo.then((r) => reject(new Error(`soak demo ended before printing a URL\n${describeResult(r)}`)));
    });
    url = /^open: (\S+)$/m.exec(out)![1]!;
    runDir = /run folder (\S+)/.exec(out)![1]!;
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 390, height: 844 } });
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(`console.error: ${m.text()}`);
    });
    page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
    await page.goto(url);
  });

  afterAll(async () => {
    await browser?.close();
    if (demo.exitCode === null) demo.kill('SIGKILL');
    await rm(dir, { recursive: true, force: true });
  });

  const state = (s: RegExp) => page.locator('#state', { hasText: s }).waitFor({ timeout: WAIT });
  const timelineHas = (s: string) => page.locator('#timeline li', { hasText: s }).first().waitFor({ timeout: WAIT });

  test('a wrong or missing token gets 403', async () => {
    const bad = new URL(url);
    bad.searchParams.set('token', 'not-the-token');
    expect((await fetch(bad)).status).toBe(403);
    bad.searchParams.delete('token');
    expect((await fetch(bad)).status).toBe(403);
  });

  test('running, at phone width, with a checkpoint and the kill command', async () => {
    await state(/running|checkpointing/);
    await page.locator('#ck-seq', { hasText: /^\d+$/ }).waitFor({ timeout: WAIT });
    await expect(page.locator('#cmd-group').textContent()).resolves.toMatch(/^kill -9 -- -\d+$/);
    await page.locator('#members', { hasText: /^\d+ node, \d+ node, \d+ node/ }).waitFor({ timeout: WAIT }); // host, agent, tool
    const width = await page.evaluate('document.documentElement.scrollWidth');
    expect(width).toBeLessThanOrEqual(390);
    await page.screenshot({ path: path.join(ARTIFACTS, 'demo-running.png'), fullPage: true });
  });

  test('kill -9 of the printed process group: dead -> restoring -> verified, with the journal downtime', async () => {
    const cmd = (await page.locator('#cmd-group').textContent()) ?? '';
    const pgid = Number(/-(\d+)$/.exec(cmd)?.[1]);
    expect(pgid).toBeGreaterThan(1);
    process.kill(-pgid, 'SIGKILL'); // as a person would type it
    await timelineHas('died');
    await timelineHas('restoring');
    await state(/verified/);
    await page.locator('#n-ok', { hasText: /^1$/ }).waitFor({ timeout: WAIT });
    await page.screenshot({ path: path.join(ARTIFACTS, 'demo-verified.png'), fullPage: true });
    await expect(page.locator('#o-from').textContent()).resolves.toMatch(/^checkpoint \d+ \(step \d+\)$/);
    await expect(page.locator('#o-nonce').textContent()).resolves.toBe('yes');
    await expect(page.locator('#o-lost').textContent()).resolves.toMatch(/^\d+ \(step \d+ at the kill/);
    const [c] = cycles(runDir);
    expect(c?.outcome).toBe('ok');
    const shown = (await page.locator('#o-downtime').textContent()) ?? '';
    const journaled = c!.downtimeMs!;
    expect(shown).toBe(journaled < 1000 ? `${journaled.toFixed(1)} ms` : `${(journaled / 1000).toFixed(2)} s`);
    expect(await page.locator('#cmd-group').textContent()).not.toBe(cmd); // a new host to kill
  });

  test('the kill -9 now button does the same', async () => {
    await state(/running|checkpointing/);
    await page.locator('#kill').click();
    await page.locator('#n-ok', { hasText: /^2$/ }).waitFor({ timeout: WAIT });
    await expect(page.locator('#o-cycle').textContent()).resolves.toMatch(/^#2, by the button/);
    expect(cycles(runDir).map((c) => c.outcome)).toEqual(['ok', 'ok']);
    // the resume rate as it may be watched: its anytime-valid interval, two in two deciding nothing against 95%
    const rate = page.locator('#rate', { hasText: / over 2 judged;/ });
    await rate.waitFor({ timeout: WAIT });
    await expect(rate.textContent()).resolves.toBe(resumeRateText({ resumed: 2, failed: 0 }));
    expect(resumeRateText({ resumed: 2, failed: 0 })).toMatch(
      /^resume rate, anytime-valid \(valid at every look\): \[\d+(\.\d)?%, 100%\] over 2 judged; not decided against 95% yet/,
    );
    await page.screenshot({ path: path.join(ARTIFACTS, 'demo-button.png'), fullPage: true });
  });

  test('a POST from another origin is refused and kills nothing', async () => {
    const kill = url.replace('/?', '/kill?');
    expect(await post(kill, { Origin: 'http://evil.example', 'Sec-Fetch-Site': 'cross-site' })).toBe(403);
    expect(await post(kill, {})).toBe(403);
    await expect(page.locator('#n-int').textContent()).resolves.toBe('2');
    expect(problems).toEqual([]);
  });

  test('Ctrl-C ends the run; soak report calls it 2 interruptions typed by a person', async () => {
    demo.kill('SIGINT');
    const r = await demo;
    expect(r.exitCode, describeResult(r)).toBe(0);
    const events = readFileSync(path.join(runDir, 'journal.ndjson'), 'utf8');
    expect(events).toMatch(/"type":"run-end","status":"complete","cycles":2/);
    const report = await soakIn(() => dir, WAIT)('report', runDir, '--out', 'reports');
    const summary = /report: (\S+)index\.html/.exec(report.stdout)?.[1];
    expect(summary, describeResult(report)).toBeDefined();
    const md = readFileSync(path.join(summary!, 'summary.md'), 'utf8');
    expect(md).toContain('2 interruptions typed by a person');
    expect(md).toContain('2 of 2 judged (Wilson 95%');
  });
});
