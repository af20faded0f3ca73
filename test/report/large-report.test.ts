// A 100,000-cycle report: bounded page and charts, and the spike and failures in the middle of the run still drawn.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { reportChartSpecs } from '../../harness/report/charts/charts.js';
import type { CycleBin } from '../../harness/report/charts/cycle-bins.js';
import { MAX_CYCLE_BINS, MAX_UNBINNED_CYCLES } from '../../harness/report/charts/cycle-bins.js';
import { downtimePerCycleSpec } from '../../harness/report/charts/downtime-charts.js';
import { writeReport } from '../../harness/report/write.js';
import type { RunAnalysis } from '../../harness/analysis/summary.js';
import { makeAnalysis, makeGates } from './fixtures.js';

const CYCLES = 100_000;
const SPIKE_CYCLE = 61_234;
const SPIKE_MS = 20_000;
/** Even: never resumed; odd: resumed, then failed by the checker (see fixtures.ts). */
const NEVER_RESUMED = 50_000;
const FAILED_RESUMED = 50_001;
const MAX_HTML_BYTES = 3 * 2 ** 20;

/** The data values of a chart spec (top-level data, or the first layer's). */
function chartValues(spec: unknown): unknown[] {
  const s = spec as { data?: { values?: unknown[] }; layer?: Array<{ data?: { values?: unknown[] } }> };
  return s.data?.values ?? s.layer?.[0]?.data?.values ?? [];
}

let analysis: RunAnalysis;
let reportsDir: string;
let dir: string;

beforeAll(async () => {
  analysis = makeAnalysis({
    cycles: CYCLES,
    failedCycles: [NEVER_RESUMED, FAILED_RESUMED],
    downtimeOverrides: new Map([[SPIKE_CYCLE, SPIKE_MS]]),
  });
  reportsDir = await mkdtemp(path.join(os.tmpdir(), 'soak-large-'));
  ({ dir } = await writeReport({ analysis, gates: makeGates(analysis), reportsDir }));
});
afterAll(async () => {
  await rm(reportsDir, { recursive: true, force: true });
});

describe(`report of ${CYCLES} cycles`, () => {
  test('index.html stays under 3 MiB and every chart draws a bounded number of points; cycles.csv stays a file', async () => {
    const html = await readFile(path.join(dir, 'index.html'), 'utf8');
    expect(Buffer.byteLength(html)).toBeLessThan(MAX_HTML_BYTES);
    const perCycle = JSON.parse(
      await readFile(path.join(dir, 'charts', 'downtime-per-cycle.vl.json'), 'utf8'),
    ) as unknown;
    expect(chartValues(perCycle).length).toBe(CYCLES / 100);
    for (const svg of html.match(/<svg[\s\S]*?<\/svg>/g) ?? [])
      expect(svg.split('<path').length - 1).toBeLessThan(2 * MAX_CYCLE_BINS);
    const csv = await readFile(path.join(dir, 'cycles.csv'), 'utf8');
    expect(csv.split('\n').length - 2).toBe(CYCLES); // header and final newline
    expect(Buffer.byteLength(csv)).toBeGreaterThan(MAX_HTML_BYTES); // so the page could not hold it inline
  });

  test('control: the unbinned chart of the same run would draw a point for every cycle that resumed', () => {
    expect(chartValues(downtimePerCycleSpec(analysis.cycles)).length).toBe(CYCLES - 1);
  });

  test('the chart says it is binned and what each mark is', async () => {
    const html = await readFile(path.join(dir, 'index.html'), 'utf8');
    expect(html).toContain(
      '100,000 cycles, binned: 100 consecutive cycles per point (1,000 bins); 2 failed (✕) in 2 bins',
    ); // subtitle
    expect(html).toContain(
      'line = median, band = p5–p95, grey line and dots = max of each bin (dots coloured by where',
    );
    expect(html).toContain('Cycles in order, binned: 100 consecutive cycles per point; line = median'); // caption
    expect(html).toContain('800 of them drawn, evenly spaced'); // store growth, over about 300,000 checkpoints
  });

  test("a single spike in the middle of the run is its bin's max, and the chart's; the median alone would hide it", async () => {
    const bins = chartValues(
      JSON.parse(await readFile(path.join(dir, 'charts', 'downtime-per-cycle.vl.json'), 'utf8')),
    ) as CycleBin[];
    const spike = bins.find((b) => b.cycleFrom <= SPIKE_CYCLE && SPIKE_CYCLE <= b.cycleTo);
    expect(spike).toMatchObject({ maxCycle: SPIKE_CYCLE, maxMs: SPIKE_MS });
    expect(spike!.medianMs).toBeLessThan(1000);
    expect(spike!.p95Ms).toBeLessThan(1000);
    const others = bins.filter((b) => b !== spike).map((b) => b.maxMs ?? 0);
    expect(Math.max(...others)).toBeLessThan(1000);
  });

  test('failed cycles in the middle of the run are crossed at their own cycle: one resumed, one never', async () => {
    const bins = chartValues(
      JSON.parse(await readFile(path.join(dir, 'charts', 'downtime-per-cycle.vl.json'), 'utf8')),
    ) as CycleBin[];
    const failed = bins.filter((b) => b.failed > 0);
    const resumedMs = analysis.cycles.downtimeMs[FAILED_RESUMED - 1]!;
    expect(failed).toMatchObject([
      { cycleFrom: 49_901, cycleTo: 50_000, failed: 1, failedNeverResumed: 1, firstNeverResumedCycle: NEVER_RESUMED },
      {
        cycleFrom: 50_001,
        cycleTo: 50_100,
        failed: 1,
        failedResumed: 1,
        failedMaxCycle: FAILED_RESUMED,
        failedMaxMs: resumedMs,
      },
    ]);
    const svg = await readFile(path.join(dir, 'charts', 'downtime-per-cycle.svg'), 'utf8');
    expect(svg.match(/aria-label="(failedMaxCycle|firstNeverResumedCycle)[^"]*"/g)).toEqual([
      `aria-label="failedMaxCycle: ${FAILED_RESUMED}; failedMaxMs: ${resumedMs}"`,
      `aria-label="firstNeverResumedCycle: ${NEVER_RESUMED}"`,
    ]);
  });
});

describe('the threshold', () => {
  const perCycle = (cycles: number) => {
    const a = makeAnalysis({ cycles });
    return reportChartSpecs(a, makeGates(a)).find((c) => c.name === 'downtime-per-cycle')!;
  };
  test(`up to ${MAX_UNBINNED_CYCLES} cycles every cycle is drawn, as before`, () => {
    const chart = perCycle(MAX_UNBINNED_CYCLES);
    expect(chart.title).toBe('Downtime per cycle');
    expect(chart.caption).toBe(
      'Each cycle in order, coloured by the phase the kill actually landed in; red crosses are failed cycles.',
    );
    expect(chartValues(chart.spec).length).toBe(MAX_UNBINNED_CYCLES);
  });
  test('one more cycle is binned', () => {
    const chart = perCycle(MAX_UNBINNED_CYCLES + 1);
    expect(chart.title).toBe('Downtime per cycle (binned)');
    expect(chartValues(chart.spec).length).toBe(401); // 5 cycles per bin
  });
});
