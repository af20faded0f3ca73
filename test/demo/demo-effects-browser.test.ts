// `soak demo --scenario effects` in Debian's Chromium: the page's "External effects" table shows, per key discipline,
// the requests the world (the run's effect ledger) has been sent, live, and the duplicates and lost effects the
// accounting after each resume found. The test kills the session with the page's button until the random-key row shows
// a duplicate (the negative control: the re-emissions a resume causes are found) while the step-key row stays at 0
// duplicates and every row at 0 lost; the page's figures are the journal's; Ctrl-C ends the run with a last accounting.
// Every wait is on observed page state.
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { execaNode, type ResultPromise } from 'execa';
import { type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { EffectsEvent } from '../../harness/journal/effects-event.js';
import { chromiumPresent, launchChromium } from '../helpers/chromium.js';
import { cliPath } from '../helpers/paths.js';
import { describeResult } from '../helpers/cli.js';

const WAIT = 90_000;
const D = ['step-key', 'random-key', 'no-key'] as const;

/** The journal's effects events so far. */
function accountings(runDir: string): EffectsEvent[] {
  return readFileSync(path.join(runDir, 'journal.ndjson'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { type: string })
    .filter((e): e is EffectsEvent => e.type === 'effects');
}

describe.skipIf(!chromiumPresent)('soak demo with effects in headless Chromium', () => {
  let dir: string;
  let demo: ResultPromise;
  let runDir: string;
  let browser: Browser | undefined;
  let page: Page;
  const problems: string[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'soak-demo-effects-'));
    demo = execaNode(cliPath, ['demo', '--scenario', 'effects', '--out', 'runs'], {
      cwd: dir,
      reject: false,
      env: { CI: '1' },
    });
    let out = '';
    await new Promise<void>((resolve, reject) => {
      demo.stdout!.on('data', (d: Buffer) => {
        out += d.toString();
        if (/^open: \S+$/m.test(out)) resolve();
      });
      void demo.then((r) => reject(new Error(`soak demo ended before printing a URL\n${describeResult(r)}`)));
    });
    runDir = /run folder (\S+)/.exec(out)![1]!;
    browser = await launchChromium();
    page = await browser.newPage();
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(`console.error: ${m.text()}`);
    });
    page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
    await page.goto(/^open: (\S+)$/m.exec(out)![1]!);
  }, WAIT);

  afterAll(async () => {
    await browser?.close();
    if (demo.exitCode === null) demo.kill('SIGKILL');
    await rm(dir, { recursive: true, force: true });
  });

  const cell = (d: string, k: string) => page.locator(`#fx-${d}-${k}`);
  const number = async (d: string, k: string) => Number(await cell(d, k).textContent());

  test('the effects table counts the requests the world is sent, live', async () => {
    await page.locator('#effects').waitFor({ state: 'visible', timeout: WAIT });
    for (const d of D)
      await cell(d, 'emitted')
        .filter({ hasText: /^[1-9]\d*$/ })
        .waitFor({ timeout: WAIT });
    const before = await number('step-key', 'emitted');
    await page
      .locator('#fx-step-key-emitted', { hasText: new RegExp(`^(?!${before}$)\\d+$`) })
      .waitFor({ timeout: WAIT });
    expect(await number('step-key', 'emitted')).toBeGreaterThan(before);
  });

  test('kills until random keys show a duplicate; step keys none; nothing lost; the journal says the same', async () => {
    for (let kills = 1; kills <= 8; kills++) {
      await page.locator('#state', { hasText: /running|checkpointing/ }).waitFor({ timeout: WAIT });
      await page.locator('#kill').click();
      await page.locator('#n-ok', { hasText: new RegExp(`^${kills}$`) }).waitFor({ timeout: WAIT });
      // the page's judged figures are the journal's sums once this resume's accounting is on disk
      const sum = (d: (typeof D)[number], k: 'duplicates' | 'lost') =>
        accountings(runDir).reduce((n, e) => n + e.disciplines[d][k], 0);
      await page
        .locator('#fx-random-key-duplicates', { hasText: new RegExp(`^${sum('random-key', 'duplicates')}$`) })
        .waitFor({ timeout: WAIT });
      for (const d of D) {
        expect(await number(d, 'lost'), d).toBe(0);
        expect(await number(d, 'duplicates'), d).toBe(sum(d, 'duplicates'));
      }
      expect(await number('step-key', 'duplicates')).toBe(0);
      if ((await number('random-key', 'duplicates')) > 0) break;
    }
    expect(await number('random-key', 'duplicates')).toBeGreaterThan(0); // the negative control
    expect(problems).toEqual([]);
  });

  test('Ctrl-C ends the run with a last accounting of the last session', async () => {
    const judged = accountings(runDir).length;
    demo.kill('SIGINT');
    const r = await demo;
    expect(r.exitCode, describeResult(r)).toBe(0);
    const all = accountings(runDir);
    expect(all.length).toBe(judged + 1);
    expect(all.at(-1)!.restoredThrough).toBeNull();
    for (const d of D)
      expect(
        all.reduce((n, e) => n + e.disciplines[d].lost, 0),
        d,
      ).toBe(0);
  });
});
