import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { InputError } from '../../harness/core/errors.js';
import { publishReport } from '../../harness/report/publish.js';
import { writeReport } from '../../harness/report/write.js';
import { makeAnalysis, makeGates } from './fixtures.js';

const CHARTS = [
  'checkpoint-pause',
  'downtime-ecdf',
  'downtime-histogram',
  'downtime-per-cycle',
  'store-growth',
  'success-rates',
];
let reportsDir: string;

beforeEach(async () => {
  reportsDir = await mkdtemp(path.join(os.tmpdir(), 'soak-write-'));
});
afterEach(async () => {
  await rm(reportsDir, { recursive: true, force: true });
});

async function tree(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const e of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!e.isFile()) continue;
    const full = path.join(e.parentPath, e.name);
    out[path.relative(dir, full)] = createHash('sha256')
      .update(await readFile(full))
      .digest('hex');
  }
  return out;
}

describe('writeReport', () => {
  test('writes every file into <date>-<slug>/ and returns their paths', async () => {
    const analysis = makeAnalysis({ scenario: 'Nightly Soak' });
    const { dir, files } = await writeReport({ analysis, gates: makeGates(analysis), reportsDir });
    expect(dir).toBe(path.join(reportsDir, '2025-06-01-nightly-soak'));
    const expected = [
      'cycles.csv',
      'index.html',
      'summary.json',
      'summary.md',
      ...CHARTS.flatMap((c) => [`charts/${c}.svg`, `charts/${c}.vl.json`]),
    ];
    expect(files).toEqual(expected.map((f) => path.join(dir, f)).sort());
    expect(Object.keys(await tree(dir)).sort()).toEqual([...expected].sort());

    const json = JSON.parse(await readFile(path.join(dir, 'summary.json'), 'utf8')) as Record<string, unknown>;
    expect(json['schemaVersion']).toBe(1);
    expect(json['killResume']).toMatchObject({ successes: 30, trials: 30 });
    expect((json['gates'] as unknown[]).length).toBe(5);
    expect(await readFile(path.join(dir, 'summary.json'), 'utf8')).toContain('\n  "schemaVersion": 1,');

    const csv = (await readFile(path.join(dir, 'cycles.csv'), 'utf8')).trim().split('\n');
    expect(csv[0]).toBe(
      'cycle,phase,observedPhase,outcome,downtimeMs,killStep,restoredSeq,restoredStep,lostSteps,restoreKills,violations,cause',
    );
    expect(csv.length).toBe(31);

    const html = await readFile(path.join(dir, 'index.html'), 'utf8');
    for (const c of CHARTS) {
      const svg = await readFile(path.join(dir, 'charts', `${c}.svg`), 'utf8');
      expect(html).toContain(svg.trim());
      const spec = JSON.parse(await readFile(path.join(dir, 'charts', `${c}.vl.json`), 'utf8')) as Record<
        string,
        unknown
      >;
      expect(spec['$schema']).toMatch(/vega-lite\/v6/);
    }
    expect(html).not.toMatch(/<script|src="http|href="http/);
  });

  test('never overwrites: a second report on the same date gets -2, the first is untouched', async () => {
    const analysis = makeAnalysis();
    const first = await writeReport({ analysis, gates: makeGates(analysis), reportsDir });
    const before = await tree(first.dir);
    const second = await writeReport({ analysis, gates: [], reportsDir });
    const third = await writeReport({ analysis, gates: [], reportsDir });
    expect(path.basename(second.dir)).toBe('2025-06-01-default-soak-2');
    expect(path.basename(third.dir)).toBe('2025-06-01-default-soak-3');
    expect(await tree(first.dir)).toEqual(before);
  });

  test('a folder of the same name that is not a report is skipped, not replaced', async () => {
    await mkdir(path.join(reportsDir, '2025-06-01-default-soak'));
    await writeFile(path.join(reportsDir, '2025-06-01-default-soak', 'notes.txt'), 'keep me');
    const analysis = makeAnalysis();
    const { dir } = await writeReport({ analysis, gates: [], reportsDir });
    expect(path.basename(dir)).toBe('2025-06-01-default-soak-2');
    expect(await readFile(path.join(reportsDir, '2025-06-01-default-soak', 'notes.txt'), 'utf8')).toBe('keep me');
  });

  test('a failure while writing leaves no report folder and no temp folder', async () => {
    const files = new Map([
      ['a.txt', 'a'],
      ['../escape.txt', 'b'],
    ]);
    await expect(publishReport(reportsDir, '2025-06-01-x', files)).rejects.toThrow(/escapes the report folder/);
    expect(await readdir(reportsDir)).toEqual([]);
  });

  test('a date that is not yyyy-mm-dd is refused before anything is written', async () => {
    const analysis = makeAnalysis();
    analysis.summary.date = '../../tmp/evil';
    await expect(writeReport({ analysis, gates: [], reportsDir })).rejects.toThrow(InputError);
    expect(await readdir(reportsDir)).toEqual([]);
  });

  test('the reports index lists every report newest first and escapes names', async () => {
    const older = makeAnalysis({ date: '2025-05-20', scenario: 'a <script>alert(1)</script> b' });
    const newer = makeAnalysis({ date: '2025-06-02', cycles: 40, failedCycles: [4] });
    await writeReport({ analysis: older, gates: makeGates(older), reportsDir });
    await writeReport({ analysis: newer, gates: makeGates(newer), reportsDir });
    await mkdir(path.join(reportsDir, '2025-06-05-broken'));
    const index = await readFile(path.join(reportsDir, 'index.html'), 'utf8');
    const order = ['2025-06-05-broken', '2025-06-02-default-soak', '2025-05-20-a-script-alert-1-script-b'].map((d) =>
      index.indexOf(`<code>${d}</code>`),
    );
    expect(order[0]).toBe(-1); // created after the last regeneration
    expect(order[1]).toBeGreaterThan(0);
    expect(order[1]).toBeLessThan(order[2] ?? 0);
    expect(index).not.toContain('<script>alert(1)</script>');
    expect(index).toContain('a &lt;script&gt;alert(1)&lt;/script&gt; b');
    expect(index).toContain('data-chart="trend"');
    expect(index).toMatch(/<svg[^>]*class="marks"/);
    expect((await readdir(reportsDir)).filter((n) => n.startsWith('.'))).toEqual([]);
  });
});
