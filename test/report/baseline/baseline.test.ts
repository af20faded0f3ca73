// `--baseline`: the previous report read back (summary.json + cycles.csv), the since-last section in all three files,
// `auto` picking the newest earlier report of the same scenario and target, and bad baselines named by file and line.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { InputError } from '../../../harness/core/errors.js';
import { downtimesFromCsv, readBaseline } from '../../../harness/report/baseline/read-baseline.js';
import { autoBaseline } from '../../../harness/report/baseline/resolve-baseline.js';
import { cyclesCsv } from '../../../harness/report/text/csv.js';
import { writeReport } from '../../../harness/report/write.js';
import { makeAnalysis } from '../fixtures.js';
import { tallyCycles } from '../../../harness/analysis/tally.js';
import type { RunAnalysis } from '../../../harness/analysis/summary.js';
import { evaluateGates, gateEvidenceFromAnalysis, loadGates } from '../../../harness/gates/evaluate.js';
import { gateCell } from '../../../harness/report/baseline/since-last.js';

/** The shipped gates judged on a synthetic run. */
const makeGates = (a: RunAnalysis) => evaluateGates(loadGates(), a.summary, gateEvidenceFromAnalysis(a, a.cadence));

let reportsDir: string;
let before: string; // 2025-06-01, default-soak
let now: string; // 2025-06-02, default-soak, compared with `before`
let gateSixBefore: string;

beforeAll(async () => {
  reportsDir = await mkdtemp(path.join(os.tmpdir(), 'soak-baseline-'));
  const a = makeAnalysis({ cycles: 40, seed: 3, scenario: 'default-soak', date: '2025-06-01', failedCycles: [5] });
  before = (await writeReport({ analysis: a, gates: makeGates(a), reportsDir })).dir;
  gateSixBefore = gateCell(makeGates(a).find((g) => g.id === 6));
  const other = makeAnalysis({ cycles: 20, seed: 4, scenario: 'skew-control', date: '2025-06-01' });
  await writeReport({ analysis: other, gates: makeGates(other), reportsDir });
  const b = makeAnalysis({ cycles: 50, seed: 8, scenario: 'default-soak', date: '2025-06-02' });
  now = (await writeReport({ analysis: b, gates: makeGates(b), reportsDir, baseline: await readBaseline(before) })).dir;
});
afterAll(() => rm(reportsDir, { recursive: true, force: true }));

describe('since last report', () => {
  test('cycles.csv read back gives exactly the downtimes analysis used (resumed cycles only)', () => {
    const a = makeAnalysis({ cycles: 40, seed: 3, failedCycles: [5, 9] });
    const want = tallyCycles(a.cycles, new Map()).downtimes;
    expect(want).toHaveLength(38);
    expect(downtimesFromCsv(cyclesCsv(a.cycles), 'cycles.csv')).toEqual(want);
  });

  test('summary.json names the baseline and stores the comparison; summary.md and index.html show it', async () => {
    const json = JSON.parse(await readFile(path.join(now, 'summary.json'), 'utf8')) as {
      baseline: {
        dir: string;
        runId: string;
        date: string;
        gates: { id: number; then: string; now: string }[];
        downtime: { nA: number; nB: number; pValue: number };
      };
    };
    expect(json.baseline).toMatchObject({ dir: path.basename(before), runId: 'run-3-40', date: '2025-06-01' });
    const downtime = json.baseline.downtime;
    expect(downtime.nA).toBe(39); // 40 cycles, one failed: its downtime is not a resume's
    expect(downtime.nB).toBe(50);
    expect(downtime.pValue).toBeGreaterThan(0);
    const six = json.baseline.gates.find((g) => g.id === 6)!;
    expect(six.then).toBe(gateSixBefore);
    expect(six.then).toMatch(/^insufficient data: 97\.5% \(39\/40\) \[\d+\.\d%, \d+\.\d%\], n = 40$/);
    expect(six.now).toMatch(/^insufficient data: 100% \(50\/50\) \[92\.8%, 100%\], n = 50$/);
    const md = await readFile(path.join(now, 'summary.md'), 'utf8');
    expect(md).toContain('## Since last report');
    expect(md).toContain(`Compared with ${path.basename(before).replace(/-/g, '-')}: run run-3-40 of 2025-06-01`);
    expect(md).toContain(six.then.replace(/[[\]]/g, (c) => `\\${c}`));
    const html = await readFile(path.join(now, 'index.html'), 'utf8');
    expect(html).toContain('<h2>Since last report</h2>');
    expect(html).toContain(`data-col="then">${six.then}</td>`);
    expect(html).toMatch(/permutation test on the medians \((exact|monte-carlo), \d+ splits\) p = /);
  });

  test('a report without --baseline has no such section and no baseline field', async () => {
    const json = JSON.parse(await readFile(path.join(before, 'summary.json'), 'utf8')) as Record<string, unknown>;
    expect(json['baseline']).toBeUndefined();
    expect(await readFile(path.join(before, 'summary.md'), 'utf8')).not.toContain('Since last report');
  });

  test('auto: the newest earlier report of the same scenario and target, never a later one or another scenario', async () => {
    const run = {
      scenario: 'default-soak',
      target: 'process',
      date: '2025-06-03',
      startedAt: '2025-06-03T10:00:00.000Z',
    };
    expect(await autoBaseline(reportsDir, run)).toBe(now);
    expect(await autoBaseline(reportsDir, { ...run, startedAt: '2025-06-02T09:00:00.000Z' })).toBe(before);
    expect(await autoBaseline(reportsDir, { ...run, startedAt: '2025-06-01T10:00:00.000Z' })).toBeNull(); // itself
    expect(await autoBaseline(reportsDir, { ...run, target: 'microvm' })).toBeNull();
    expect(await autoBaseline(path.join(reportsDir, 'missing'), run)).toBeNull();
  });

  test('a missing or malformed baseline is an InputError naming the file and the line or field', async () => {
    const bad = path.join(reportsDir, 'bad');
    await expect(readBaseline(bad)).rejects.toThrow(InputError);
    await expect(readBaseline(bad)).rejects.toThrow(`${path.join(bad, 'summary.json')}: cannot read the baseline`);
    const csv = await readFile(path.join(before, 'cycles.csv'), 'utf8');
    const lines = csv.split('\n');
    lines[3] = `${lines[3]},extra`;
    expect(() => downtimesFromCsv(lines.join('\n'), 'x/cycles.csv')).toThrow(
      /^x\/cycles\.csv:4: 13 cells, the header has 12$/,
    );
    lines[3] = lines[3].replace(',extra', '').replace(/^(\d+),/, '$1,"');
    expect(() => downtimesFromCsv(lines.join('\n'), 'x/cycles.csv')).toThrow(/^x\/cycles\.csv:\d+: /);
    await writeFile(path.join(before, 'summary.json'), '{"runId": 7}');
    await expect(readBaseline(before)).rejects.toThrow(/summary\.json: field "runId" is missing or not a string$/);
  });
});
