// End to end in Debian's Chromium: the written report page renders every chart, escapes a hostile name, logs no errors.
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { type Browser } from 'playwright-core';
import { CHROMIUM, chromiumPresent, launchChromium } from '../helpers/chromium.js';
import { afterAll, beforeAll, describe, expect, onTestFinished, test } from 'vitest';
import { writeReport } from '../../harness/report/write.js';
import { readBaseline } from '../../harness/report/baseline/read-baseline.js';
import { makeAnalysis, makeGates } from './fixtures.js';
import { plantedGates } from './planted-gates.js';
import { PLANTED_SOURCES, plantedSaturatedMerge } from './planted-provenance.js';

const HOSTILE = 'nightly <script>alert(1)</script> soak';
const ARTIFACTS = path.resolve(import.meta.dirname, '..', '..', 'test-artifacts');
const CHART_NAMES = [
  'downtime-histogram',
  'downtime-ecdf',
  'downtime-per-cycle',
  'success-rates',
  'checkpoint-pause',
  'store-growth',
];
const present = chromiumPresent;
if (!present)
  console.warn(
    `skipping browser test: ${CHROMIUM} is missing (install Debian's chromium: apt-get install -y chromium)`,
  );

describe.skipIf(!present)('report page in headless Chromium', () => {
  let browser: Browser | undefined; // unset if the launch failed
  let reportsDir: string;

  beforeAll(async () => {
    reportsDir = await mkdtemp(path.join(os.tmpdir(), 'soak-browser-'));
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await rm(reportsDir, { recursive: true, force: true });
  });

  async function open(file: string) {
    const page = await browser!.newPage({ viewport: { width: 1200, height: 900 } });
    const problems: string[] = [];
    const dialogs: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error' || m.type() === 'warning') problems.push(`console.${m.type()}: ${m.text()}`);
    });
    page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
    page.on('dialog', async (d) => {
      dialogs.push(d.message());
      await d.dismiss();
    });
    await page.goto(pathToFileURL(file).href, { waitUntil: 'load' });
    return { page, problems, dialogs };
  }

  test('30-cycle report: all charts visible, hostile scenario name shown as text, no errors', async () => {
    const analysis = makeAnalysis({ cycles: 30, scenario: HOSTILE, target: 'microvm', failedCycles: [] });
    const { dir } = await writeReport({ analysis, gates: makeGates(analysis), reportsDir });
    const { page, problems, dialogs } = await open(path.join(dir, 'index.html'));

    for (const name of CHART_NAMES) {
      const svg = page.locator(`figure[data-chart="${name}"] svg`);
      await expect(svg.count()).resolves.toBe(1);
      const box = await svg.boundingBox();
      expect(box, name).not.toBeNull();
      expect(box!.width, name).toBeGreaterThan(100);
      expect(box!.height, name).toBeGreaterThan(100);
      expect(await svg.isVisible(), name).toBe(true);
      expect(await svg.locator('path, line, text').count(), name).toBeGreaterThan(5);
    }
    await expect(page.locator('h1').textContent()).resolves.toContain('<script>alert(1)</script>');
    await expect(page.locator('main script').count()).resolves.toBe(0);
    await expect(page.locator('script').count()).resolves.toBe(0);
    await expect(page.locator('#verdict').isVisible()).resolves.toBe(true);
    await expect(page.locator('table.gates tbody tr').count()).resolves.toBe(5);
    await mkdir(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: path.join(ARTIFACTS, 'report.png'), fullPage: true });
    expect(dialogs).toEqual([]);
    expect(problems).toEqual([]);
    await page.close();
  });

  test('gate figures as a reader sees them: 80/80 is 100% observed with [95.4%, 100%]; a straddled bar is inconclusive', async () => {
    const analysis = makeAnalysis({ cycles: 80, seed: 5, scenario: 'planted', failedCycles: [] });
    const ownDir = await mkdtemp(path.join(os.tmpdir(), 'soak-browser-planted-')); // the index test counts the shared folder
    onTestFinished(() => rm(ownDir, { recursive: true, force: true }));
    const { dir } = await writeReport({ analysis, gates: plantedGates(analysis), reportsDir: ownDir });
    const { page, problems, dialogs } = await open(path.join(dir, 'index.html'));
    const cell = (gate: number, col: string) =>
      page.locator(`table.gates tr[data-gate="${gate}"] td[data-col="${col}"]`);
    await expect(cell(6, 'observed').innerText()).resolves.toBe('100% (80/80)');
    await expect(cell(6, 'interval').innerText()).resolves.toBe('[95.4%, 100%]');
    await expect(cell(6, 'judged').innerText()).resolves.toBe('lower end, 95.4%');
    await expect(page.locator('table.gates th').allInnerTexts()).resolves.toContain('Observed');
    await expect(cell(9, 'verdict').innerText()).resolves.toBe('inconclusive at 95%');
    expect(await cell(9, 'verdict').isVisible()).toBe(true);
    await expect(page.locator('#verdict strong').innerText()).resolves.toMatch(/^INCONCLUSIVE AT 95%/);
    await page.locator('details#gate-rules > summary').click(); // folded away until opened
    await expect(page.locator('dl.gate-descriptions').innerText()).resolves.toContain(
      'A bar planted inside the interval.',
    );
    const chart = page.locator('figure[data-chart="success-rates"] svg');
    await expect(chart.locator('text', { hasText: 'point: observed rate' }).count()).resolves.toBe(1);
    for (const [name, label] of [
      ['downtime-histogram', 'gate 4: p95 < 1000 ms'],
      ['downtime-ecdf', 'gate 4: p95 < 1000 ms'],
      ['checkpoint-pause', 'gate 3: p95 < 50 ms'],
    ] as const) {
      const rule = page.locator(`figure[data-chart="${name}"] svg text`, { hasText: label });
      await expect(rule.count(), name).resolves.toBe(1);
      expect(await rule.isVisible(), name).toBe(true);
    }
    await mkdir(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: path.join(ARTIFACTS, 'report-planted.png'), fullPage: true });
    expect(dialogs).toEqual([]);
    expect(problems).toEqual([]);
    await page.close();
  });

  test('a saturated, interrupted merge: status first, the saturated banner above the verdict, every shard listed', async () => {
    const analysis = plantedSaturatedMerge();
    const ownDir = await mkdtemp(path.join(os.tmpdir(), 'soak-browser-saturated-')); // the index test counts the shared folder
    onTestFinished(() => rm(ownDir, { recursive: true, force: true }));
    const { dir } = await writeReport({ analysis, gates: makeGates(analysis), reportsDir: ownDir });
    const { page, problems, dialogs } = await open(path.join(dir, 'index.html'));
    await expect(page.locator('#provenance').innerText()).resolves.toBe(
      'Run interrupted after 37 of 80 planned cycles, merged from 2 runs on 2 machines.',
    );
    const banner = page.locator('#saturated');
    expect(await banner.isVisible()).toBe(true);
    await expect(banner.innerText()).resolves.toMatch(
      /^Measured on a saturated machine: load average p50 5\.5 \(max [\d.]+\) on 2 cores/,
    );
    const [bannerBox, verdictBox] = [await banner.boundingBox(), await page.locator('#verdict').boundingBox()];
    expect(bannerBox!.y).toBeLessThan(verdictBox!.y);
    const rows = await page.locator('table.sources tbody tr').allInnerTexts();
    expect(rows).toHaveLength(PLANTED_SOURCES.length);
    PLANTED_SOURCES.forEach((s, i) => {
      expect(rows[i]).toContain(s.runId);
      expect(rows[i]).toContain(s.machine);
      expect(rows[i]).toContain(`${s.cycles} (ids ${s.firstCycle}-${s.lastCycle})`);
    });
    await expect(page.locator('main').innerText()).resolves.not.toMatch(/one host/i);
    await mkdir(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: path.join(ARTIFACTS, 'report-saturated-merge.png'), fullPage: true });
    expect(dialogs).toEqual([]);
    expect(problems).toEqual([]);
    await page.close();
  });

  test('a quiet complete run: no saturated banner, no source runs (negative control)', async () => {
    const analysis = makeAnalysis({ cycles: 30, seed: 2, scenario: 'quiet' });
    const ownDir = await mkdtemp(path.join(os.tmpdir(), 'soak-browser-quiet-'));
    onTestFinished(() => rm(ownDir, { recursive: true, force: true }));
    const { dir } = await writeReport({ analysis, gates: makeGates(analysis), reportsDir: ownDir });
    const { page } = await open(path.join(dir, 'index.html'));
    await expect(page.locator('#provenance').innerText()).resolves.toBe('Run complete: 30 cycles.');
    await expect(page.locator('#saturated').count()).resolves.toBe(0);
    await expect(page.locator('table.sources').count()).resolves.toBe(0);
    await page.close();
  });

  test('a report with --baseline: the "Since last report" section names the night before and each gate then and now', async () => {
    const ownDir = await mkdtemp(path.join(os.tmpdir(), 'soak-browser-baseline-'));
    onTestFinished(() => rm(ownDir, { recursive: true, force: true }));
    const night = (date: string, seed: number) =>
      makeAnalysis({ cycles: 40, seed, scenario: 'nightly', date, failedCycles: seed === 3 ? [5] : [] });
    const before = night('2025-06-01', 3);
    const beforeDir = (await writeReport({ analysis: before, gates: makeGates(before), reportsDir: ownDir })).dir;
    const now = night('2025-06-02', 8);
    const baseline = await readBaseline(beforeDir);
    const { dir } = await writeReport({ analysis: now, gates: makeGates(now), reportsDir: ownDir, baseline });
    const { page, problems } = await open(path.join(dir, 'index.html'));
    const section = page.locator('#since-last');
    expect(await section.isVisible()).toBe(true);
    await expect(section.locator('p.baseline').innerText()).resolves.toContain(
      `Compared with ${path.basename(beforeDir)}: run ${before.summary.runId} of 2025-06-01`,
    );
    const rows = section.locator('table.since-last tbody tr');
    await expect(rows.count()).resolves.toBe(makeGates(now).length);
    await expect(section.locator('p.downtime-change').innerText()).resolves.toMatch(/\S/);
    await mkdir(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: path.join(ARTIFACTS, 'report-since-last.png'), fullPage: true });
    expect(problems).toEqual([]);
    // negative control: the night before has no baseline, so no such section
    const first = await open(path.join(beforeDir, 'index.html'));
    await expect(first.page.locator('#since-last').count()).resolves.toBe(0);
    await first.page.close();
    await page.close();
  });

  test('20,000-cycle report: the binned per-cycle chart is visible with its failed cycles crossed, no errors', async () => {
    const analysis = makeAnalysis({
      cycles: 20_000,
      seed: 3,
      scenario: 'large',
      failedCycles: [7_000, 13_001],
      downtimeOverrides: new Map([[9_999, 9_000]]),
    });
    const ownDir = await mkdtemp(path.join(os.tmpdir(), 'soak-browser-large-')); // the index test below counts the shared folder's reports
    onTestFinished(() => rm(ownDir, { recursive: true, force: true }));
    const { dir } = await writeReport({ analysis, gates: makeGates(analysis), reportsDir: ownDir });
    const { page, problems, dialogs } = await open(path.join(dir, 'index.html'));
    const svg = page.locator('figure[data-chart="downtime-per-cycle"] svg');
    const box = await svg.boundingBox();
    expect(box!.width).toBeGreaterThan(600);
    expect(box!.height).toBeGreaterThan(100);
    await expect(svg.locator('text', { hasText: 'Downtime per cycle (binned)' }).count()).resolves.toBe(1);
    const crosses = svg.locator(
      'path[aria-label^="failedMaxCycle: 13001;"], path[aria-label="firstNeverResumedCycle: 7000"]',
    );
    await expect(crosses.count()).resolves.toBe(2);
    for (const cross of await crosses.all()) expect(await cross.isVisible()).toBe(true);
    await mkdir(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: path.join(ARTIFACTS, 'report-binned.png'), fullPage: true });
    expect(dialogs).toEqual([]);
    expect(problems).toEqual([]);
    await page.close();
  });

  test('reports index: trend chart visible, every report linked, no errors', async () => {
    const second = makeAnalysis({ cycles: 40, seed: 9, scenario: 'default-soak', date: '2025-06-03' });
    await writeReport({ analysis: second, gates: makeGates(second), reportsDir });
    const { page, problems, dialogs } = await open(path.join(reportsDir, 'index.html'));
    const trend = page.locator('figure[data-chart="trend"] svg').first();
    const box = await trend.boundingBox();
    expect(box!.width).toBeGreaterThan(300);
    expect(box!.height).toBeGreaterThan(100);
    const links = await page.locator('tbody a').allTextContents();
    expect(links).toEqual(['default-soak', HOSTILE]);
    await page.screenshot({ path: path.join(ARTIFACTS, 'reports-index.png'), fullPage: true });
    expect(dialogs).toEqual([]);
    expect(problems).toEqual([]);
    await page.close();
  });
});
