// The reports index (trend page) in Debian's Chromium: one trend per scenario and target with n on every point, the
// x axis by night (the report's date, not its run start: a run of the night of 06-03 that started after midnight sits
// at 06-03; a night without a report keeps its empty place; two reports of one night stand side by side), a legend that
// is not cut, negative controls apart, and a page that fits 1280 and 390 px. Screenshots in test-artifacts/.
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser, Locator } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { writeReport } from '../../harness/report/write.js';
import { chromiumPresent, CHROMIUM, launchChromium } from '../helpers/chromium.js';
import { probeLayout } from '../helpers/layout-probe.js';
import { makeAnalysis, makeGates } from './fixtures.js';

const ARTIFACTS = path.resolve(import.meta.dirname, '..', '..', 'test-artifacts');

if (!chromiumPresent) console.warn(`skipping browser test: ${CHROMIUM} is missing (apt-get install -y chromium)`);

/** The centre x of an element's box. */
async function centreX(el: Locator): Promise<number> {
  const b = (await el.boundingBox())!;
  return b.x + b.width / 2;
}

describe.skipIf(!chromiumPresent)('trend page in headless Chromium', () => {
  let browser: Browser | undefined;
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'soak-browser-trend-'));
    const write = async (a: ReturnType<typeof makeAnalysis>, startedAt?: string, negativeControl = false) => {
      const analysis = { ...a, summary: { ...a.summary, negativeControl, ...(startedAt ? { startedAt } : {}) } };
      await writeReport({ analysis, gates: makeGates(analysis), reportsDir: dir });
    };
    const night = (cycles: number, seed: number, date: string) =>
      makeAnalysis({ cycles, seed, scenario: 'default', date });
    await write(night(40, 1, '2025-06-01'), '2025-06-01T01:00:00.000Z');
    await write(night(45, 2, '2025-06-01'), '2025-06-01T13:00:00.000Z');
    await write(night(50, 6, '2025-06-03'), '2025-06-04T00:30:00.000Z'); // the night of 06-03, started after midnight
    await write(makeAnalysis({ cycles: 30, seed: 3, scenario: 'torn', date: '2025-06-02' }));
    const control = makeAnalysis({
      cycles: 20,
      seed: 4,
      scenario: 'skew-control',
      date: '2025-06-02',
      failedCycles: [1, 2, 3],
    });
    await write(control, undefined, true);
    await mkdir(ARTIFACTS, { recursive: true });
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await rm(dir, { recursive: true, force: true });
  });

  async function open(viewport: { width: number; height: number }) {
    const page = await browser!.newPage({ viewport });
    const problems: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error' || m.type() === 'warning') problems.push(`console.${m.type()}: ${m.text()}`);
    });
    page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
    await page.goto(pathToFileURL(path.join(dir, 'index.html')).href, { waitUntil: 'load' });
    return { page, problems };
  }

  test('one chart per scenario and target, n on every point, a caught negative control apart as its stored pass', async () => {
    const { page, problems } = await open({ width: 1280, height: 800 });
    const series = page.locator('#trends figure[data-chart="trend"]');
    await expect(Promise.all((await series.all()).map((f) => f.getAttribute('data-series')))).resolves.toEqual([
      'default on process',
      'torn on process',
    ]);
    const controls = page.locator('#negative-controls figure[data-chart="trend"]');
    await expect(controls.count()).resolves.toBe(1);
    expect(await controls.first().locator('svg').isVisible()).toBe(true);
    const first = series.first().locator('svg');
    for (const n of ['n=40', 'n=45', 'n=50']) {
      await expect(first.locator('text', { hasText: n }).count(), n).resolves.toBe(2); // both panels label the point
    }
    const controlRow = page.locator('tr', { hasText: 'skew-control' });
    await expect(controlRow.locator('td[data-col="verdict"]').innerText()).resolves.toBe('pass');
    await expect(controlRow.locator('td[data-col="p95"]').innerText()).resolves.toMatch(/\(n = \d+\)$/);
    expect(problems).toEqual([]);
    await page.close();
  });

  test('the x axis is the night: one place per night, an empty one for a night without a report, none for a run start', async () => {
    const { page } = await open({ width: 1280, height: 800 });
    const svg = page.locator('#trends figure[data-series="default on process"] svg');
    const labels = await svg.locator('.role-axis-label text:not([opacity="0"])').allTextContents(); // shown, not thinned
    for (const night of ['06-01', '06-01 (2)', '06-02', '06-03'])
      expect(
        labels.filter((l) => l === night),
        night,
      ).toHaveLength(2); // both panels
    expect(labels.filter((l) => l.startsWith('06-04'))).toEqual([]); // the 06-03 run started on 06-04
    await expect(svg.locator('text', { hasText: 'nights 2025-06-01 to 2025-06-03' }).count()).resolves.toBe(1);
    await expect(svg.locator('text', { hasText: 'Night (report date, UTC)' }).count()).resolves.toBe(2);
    await expect(svg.locator('text', { hasText: 'Run start' }).count()).resolves.toBe(0);
    // in the first panel: two reports of one night side by side, then the empty night 06-02, then 06-03
    const point = (n: number) => svg.locator(`path[aria-label*="n: ${n};"]`).first();
    const [x40, x45, x50] = await Promise.all([40, 45, 50].map((n) => centreX(point(n))));
    const step = x45! - x40!;
    expect(step).toBeGreaterThan(20);
    expect(x50! - x45!).toBeCloseTo(2 * step, 0);
    await expect(point(50).getAttribute('aria-label')).resolves.toContain('night: 2025-06-03');
    await page.close();
  });

  test('the legend names every stored verdict in full, inside its chart', async () => {
    const { page } = await open({ width: 1280, height: 800 });
    for (const figure of await page.locator('figure[data-chart="trend"]').all()) {
      const svg = figure.locator('svg');
      const box = (await svg.boundingBox())!;
      const legend = svg.locator('.role-legend-label text');
      const texts = await legend.allTextContents();
      expect(texts.length).toBeGreaterThan(0);
      for (const t of texts) expect(t, 'a cut legend label ends with an ellipsis').not.toMatch(/…$/);
      for (const label of await legend.all()) {
        const b = (await label.boundingBox())!;
        expect(b.x).toBeGreaterThanOrEqual(box.x - 0.5);
        expect(b.x + b.width).toBeLessThanOrEqual(box.x + box.width + 0.5);
      }
    }
    const stored = await page.locator('table.reports td[data-col="verdict"]').allInnerTexts();
    const shown = await page.locator('figure[data-chart="trend"] .role-legend-label text').allTextContents();
    expect(new Set(shown)).toEqual(new Set(stored)); // every verdict stored is named, none that is not
    await page.screenshot({ path: path.join(ARTIFACTS, 'reports-trend.png'), fullPage: true });
    await page.close();
  });

  for (const viewport of [
    { width: 1280, height: 800 },
    { width: 390, height: 844 },
  ]) {
    test(`the page fits ${viewport.width} px: nothing wider than the viewport`, async () => {
      const { page, problems } = await open(viewport);
      await page.screenshot({ path: path.join(ARTIFACTS, `reports-trend-${viewport.width}.png`), fullPage: true });
      const layout = await probeLayout(page);
      expect(layout.overflowing).toEqual([]);
      expect(layout.scrollWidth).toBeLessThanOrEqual(layout.innerWidth);
      expect(layout.clipped).toEqual([]);
      expect(problems).toEqual([]);
      await page.close();
    });
  }
});
