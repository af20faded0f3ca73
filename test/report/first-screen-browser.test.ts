// The report's first screen in Debian's Chromium at 1280x800 and 390x844 (issue 32, item 4): the verdict, every gate
// that did not pass with its measured value, 95% interval, judged figure and bar, and what to do next, all above the
// fold; no element wider than the viewport, no clipped badge, gate rows of sane height, long text folded away.
// Screenshots of each go to test-artifacts/first-screen/ (CI keeps them).
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { GateResult } from '../../harness/gates/types.js';
import { writeReport } from '../../harness/report/write.js';
import {
  fmtGateInterval,
  fmtGateJudged,
  fmtGateObserved,
  fmtGateThreshold,
} from '../../harness/report/text/gate-format.js';
import { chromiumPresent, CHROMIUM, launchChromium } from '../helpers/chromium.js';
import { probeLayout } from '../helpers/layout-probe.js';
import { storyRun, type Story } from './story-fixtures.js';
import { plantedSaturatedMerge } from './planted-provenance.js';
import { makeGates } from './fixtures.js';

const ARTIFACTS = path.resolve(import.meta.dirname, '..', '..', 'test-artifacts', 'first-screen');
const VIEWPORTS = [
  { width: 1280, height: 800 },
  { width: 390, height: 844 },
] as const;
/** Tallest gate-table row (a card on a phone) a reader should meet: long notes and descriptions are folded away. */
const MAX_ROW_PX = { 1280: 110, 390: 330 } as const;
const STORIES: Story[] = ['pass', 'fail', 'insufficient'];

if (!chromiumPresent) console.warn(`skipping browser test: ${CHROMIUM} is missing (apt-get install -y chromium)`);

/** A gate's four figures as gate-format.ts prints them (the one home of a gate's formatting). */
function figures(g: GateResult): Record<string, string> {
  return {
    observed: fmtGateObserved(g),
    interval: fmtGateInterval(g),
    judged: fmtGateJudged(g),
    bar: fmtGateThreshold(g),
  };
}

describe.skipIf(!chromiumPresent)('report first screen in headless Chromium', () => {
  let browser: Browser | undefined;
  let reportsDir: string;
  const reports = new Map<Story | 'merge', { file: string; gates: GateResult[] }>();

  beforeAll(async () => {
    reportsDir = await mkdtemp(path.join(os.tmpdir(), 'soak-first-screen-'));
    await mkdir(ARTIFACTS, { recursive: true });
    for (const story of STORIES) {
      const { analysis, gates } = storyRun(story);
      const { dir } = await writeReport({ analysis, gates, reportsDir });
      reports.set(story, { file: path.join(dir, 'index.html'), gates });
    }
    const merge = plantedSaturatedMerge(); // status and saturation banners, a table of source runs
    const written = await writeReport({ analysis: merge, gates: makeGates(merge), reportsDir });
    reports.set('merge', { file: path.join(written.dir, 'index.html'), gates: makeGates(merge) });
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await rm(reportsDir, { recursive: true, force: true });
  });

  async function open(story: Story | 'merge', viewport: { width: number; height: number }) {
    const page = await browser!.newPage({ viewport });
    const problems: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error' || m.type() === 'warning') problems.push(`console.${m.type()}: ${m.text()}`);
    });
    page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
    await page.goto(pathToFileURL(reports.get(story)!.file).href, { waitUntil: 'load' });
    return { page, problems };
  }

  /** The first element showing gate `id`'s `field` (the first screen comes before the table, so it is found first). */
  const field = (page: Page, id: number, name: string) =>
    page
      .locator(`[data-gate="${id}"] :is([data-field="${name}"], [data-col="${name === 'bar' ? 'threshold' : name}"])`)
      .first();

  for (const viewport of VIEWPORTS) {
    for (const story of STORIES) {
      test(`${story} report at ${viewport.width}x${viewport.height}: the story above the fold, nothing overflows`, async () => {
        const { gates } = reports.get(story)!;
        const { page, problems } = await open(story, viewport);
        const shot = `${story}-${viewport.width}`;
        await page.screenshot({ path: path.join(ARTIFACTS, `${shot}.png`) });
        await page.screenshot({ path: path.join(ARTIFACTS, `${shot}-full.png`), fullPage: true });

        const layout = await probeLayout(page);
        expect.soft(layout.overflowing, 'elements past the viewport').toEqual([]);
        expect.soft(layout.scrollWidth, 'page scrolls sideways').toBeLessThanOrEqual(layout.innerWidth);
        expect.soft(layout.clipped, 'clipped badges').toEqual([]);
        expect.soft(layout.scrollers, 'scrollers wider than the viewport').toEqual([]);

        const verdict = await page.locator('#verdict').boundingBox();
        expect.soft(verdict!.y + verdict!.height, 'verdict banner above the fold').toBeLessThanOrEqual(viewport.height);
        const open_ = gates.filter((g) => g.verdict !== 'pass');
        expect.soft(open_.length > 0, 'the story has gates to tell').toBe(story !== 'pass');
        // A phone's first screen holds the banner and about five gate cards. Fail and inconclusive gates come first and
        // are always above the fold; so are insufficient ones at 1280 px, while on a phone a run with six gates short of
        // samples (the 20-cycle story) continues below it, cards first, then what to do next.
        const mustShow = (g: GateResult) => viewport.width === 1280 || g.verdict !== 'insufficient';
        for (const g of open_) {
          for (const [name, text] of Object.entries(figures(g))) {
            const el = field(page, g.id, name);
            if ((await el.count()) === 0) {
              expect.soft(false, `gate ${g.id}: an element showing its ${name}`).toBe(true);
              continue;
            }
            await expect.soft(el.innerText(), `gate ${g.id} ${name}`).resolves.toBe(text);
            expect.soft(await el.isVisible(), `gate ${g.id} ${name} visible`).toBe(true);
            const box = await el.boundingBox();
            const bottom = box === null ? Infinity : box.y + box.height;
            if (mustShow(g))
              expect.soft(bottom, `gate ${g.id} ${name} above the fold`).toBeLessThanOrEqual(viewport.height);
          }
        }
        const next = page.locator('#next-steps');
        expect.soft(await next.isVisible(), 'what to do next').toBe(true);
        const nextBox = (await next.count()) === 0 ? null : await next.boundingBox();
        if (open_.every(mustShow))
          expect
            .soft(nextBox?.y ?? Infinity, 'what to do next starts above the fold')
            .toBeLessThan(viewport.height - 40);

        await page.locator('table.gates').screenshot({ path: path.join(ARTIFACTS, `${shot}-gates.png`) });
        const rows = await page.locator('table.gates tbody tr').all();
        expect.soft(rows).toHaveLength(gates.length);
        for (const [i, row] of rows.entries()) {
          const box = await row.boundingBox();
          expect.soft(box?.height, `gate row ${i + 1} height`).toBeLessThanOrEqual(MAX_ROW_PX[viewport.width]);
        }
        expect(problems).toEqual([]);
        await page.close();
      });
    }
  }

  for (const viewport of VIEWPORTS)
    test(`an interrupted, saturated merge at ${viewport.width} px: banners and the source runs fit too`, async () => {
      const { page, problems } = await open('merge', viewport);
      await page.screenshot({ path: path.join(ARTIFACTS, `merge-${viewport.width}.png`) });
      await page.screenshot({ path: path.join(ARTIFACTS, `merge-${viewport.width}-full.png`), fullPage: true });
      const layout = await probeLayout(page);
      expect(layout.overflowing).toEqual([]);
      expect(layout.scrollWidth).toBeLessThanOrEqual(layout.innerWidth);
      expect(layout.clipped).toEqual([]);
      const verdict = (await page.locator('#verdict').boundingBox())!;
      expect(verdict.y + verdict.height).toBeLessThanOrEqual(viewport.height);
      expect(problems).toEqual([]);
      await page.close();
    });

  test('long explanations are folded away until opened', async () => {
    const { page } = await open('fail', VIEWPORTS[1]);
    const descriptions = page.locator('dl.gate-descriptions');
    expect(await descriptions.isVisible()).toBe(false);
    await page.locator('details#gate-rules > summary').click();
    expect(await descriptions.isVisible()).toBe(true);
    const note = page.locator('table.gates tr[data-gate="6"] details.note');
    await expect(note.getAttribute('open')).resolves.toBeNull();
    await page.close();
  });

  test('next steps name the cycles to read, `soak check` on the run, and how many more cycles a short run needs', async () => {
    const fail = await open('fail', VIEWPORTS[0]);
    const steps = await fail.page.locator('#next-steps').innerText();
    expect(steps).toContain('soak check runs/run-5-80');
    expect(steps).toMatch(/cycles? 7, 31, 52/);
    expect(steps).toMatch(/slowest cycles?: 68 \(2,210 ms\)|slowest cycles?: 68 \(2210 ms\)/);
    await fail.page.close();
    const short = await open('insufficient', VIEWPORTS[0]);
    await expect(short.page.locator('#next-steps').innerText()).resolves.toMatch(/about \d+ more cycles/);
    await short.page.close();
  });
});
