// `soak watch` end to end in Debian's Chromium on a fixture run: the page shows the figures `soak report` writes for
// the same run (its findings, every gate's verdict, the verdict line, the downtime histogram's n), read-only.
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { execaNode, type ResultPromise } from 'execa';
import { type Browser } from 'playwright-core';
import { chromiumPresent, launchChromium } from '../helpers/chromium.js';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { cliPath, fixturePath } from '../helpers/paths.js';
import { describeResult, soakIn } from '../helpers/cli.js';
import { escapeMarkdown } from '../../harness/report/escape.js';
import { loadRuns } from '../../harness/analysis/load-runs.js';
import { judge, verdictLine } from '../../harness/gates/judge.js';
import {
  ANYTIME_LABEL,
  FIXED_N_LABEL,
  fmtAnytimeDecision,
  fmtAnytimeInterval,
} from '../../harness/report/text/anytime-format.js';

const ARTIFACTS = path.resolve(import.meta.dirname, '..', '..', 'test-artifacts', 'watch');
const RUN = fixturePath('journals', 'process-resumed');
const WAIT = 90_000;
const present = chromiumPresent;

describe.skipIf(!present)('soak watch in headless Chromium', () => {
  let dir: string;
  let watch: ResultPromise;
  let url: string;
  let browser: Browser | undefined;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'soak-watch-'));
    await mkdir(ARTIFACTS, { recursive: true });
    watch = execaNode(cliPath, ['watch', RUN], { cwd: dir, reject: false, env: { CI: '1' } });
    let out = '';
    await new Promise<void>((resolve, reject) => {
      watch.stdout!.on('data', (d: Buffer) => {
        out += d.toString();
        if (/^open: \S+$/m.test(out)) resolve();
      });
      void watch.then((r) => reject(new Error(`soak watch ended before printing a URL\n${describeResult(r)}`)));
    });
    url = /^open: (\S+)$/m.exec(out)![1]!;
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    if (watch.exitCode === null) watch.kill('SIGKILL');
    await rm(dir, { recursive: true, force: true });
  });

  test('shows the report’s findings, gate verdicts and verdict line; has no kill action', async () => {
    const report = await soakIn(() => dir, WAIT)('report', RUN, '--out', 'reports', '--json');
    const written = JSON.parse(report.stdout) as { dir: string };
    const summary = readFileSync(path.join(written.dir, 'summary.md'), 'utf8');
    const json = JSON.parse(readFileSync(path.join(written.dir, 'summary.json'), 'utf8')) as {
      downtimeMs: { n: number };
    };

    const page = await browser!.newPage({ viewport: { width: 390, height: 844 } });
    const problems: string[] = [];
    page.on('pageerror', (e) => problems.push(e.message));
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(m.text());
    });
    await page.goto(url);
    await page.locator('#status', { hasText: /complete|interrupted|budget|aborted/ }).waitFor({ timeout: WAIT });
    await page.locator('#findings li').first().waitFor({ timeout: WAIT });

    const findings = await page.locator('#findings li').allTextContents();
    expect(findings.length).toBeGreaterThan(2);
    for (const f of findings) expect(summary).toContain(`- ${escapeMarkdown(f)}`);
    const gates = await page.locator('#gates tr').count();
    expect(gates).toBe(8);
    const verdict = (await page.locator('#verdict').textContent()) ?? '';
    const { analysis } = await loadRuns([RUN]);
    expect(verdict).toBe(verdictLine(judge(analysis)));
    // each gate shows its anytime-valid decision and interval beside the fixed-n verdict, each labelled
    const heads = await page.locator('#gates').locator('xpath=..').locator('th').allTextContents();
    expect(heads).toEqual(expect.arrayContaining([FIXED_N_LABEL, ANYTIME_LABEL]));
    const judged = judge(analysis).gates;
    const cells = page.locator('#gates td.anytime');
    expect(await cells.count()).toBe(8);
    for (const [i, g] of judged.entries()) {
      const cell = cells.nth(i);
      expect(await cell.getAttribute('data-decision')).toBe(g.anytime?.decision);
      expect(await cell.locator('.badge').textContent()).toBe(fmtAnytimeDecision(g));
      expect(await cell.locator('div').textContent()).toBe(fmtAnytimeInterval(g));
    }
    const rate =
      (await cells
        .nth(judged.findIndex((g) => g.id === 6))
        .locator('div')
        .textContent()) ?? '';
    expect(rate).toMatch(/^\[\d+(\.\d)?%, \d+(\.\d)?%\] of trials that succeeded \(\d+\/\d+\) vs 95%$/);
    const bars = page.locator('#hist rect');
    let total = 0;
    for (let i = 0; i < (await bars.count()); i++) total += Number(await bars.nth(i).getAttribute('data-count'));
    expect(json.downtimeMs.n).toBeGreaterThan(0);
    expect(total).toBe(json.downtimeMs.n);
    expect(await page.locator('#ecdf path').count()).toBe(1);
    expect(await page.locator('button').count()).toBe(0);
    const kill = await fetch(url.replace('/?', '/kill?'), { method: 'POST' });
    expect(kill.status).not.toBe(204);
    expect(problems).toEqual([]);
    await page.screenshot({ path: path.join(ARTIFACTS, 'watch-fixture.png'), fullPage: true });
  });
});
