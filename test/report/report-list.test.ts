import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { entryFromSummary, listReports } from '../../harness/report/report-list.js';
import { writeReport } from '../../harness/report/write.js';
import { makeAnalysis, makeGates } from './fixtures.js';

describe('entryFromSummary', () => {
  test('reads the fields the index needs and derives the verdict', () => {
    const e = entryFromSummary('2025-06-01-x', '2025-06-01', {
      date: '2025-06-01',
      startedAt: '2025-06-01T10:00:00Z',
      scenario: 'x',
      target: 'process',
      cycles: { total: 30 },
      killResume: { successes: 30, trials: 30, wilson95: [0.886, 1] },
      downtimeMs: { p95: 271 },
      violations: 0,
      gates: [{ verdict: 'pass' }, { verdict: 'insufficient' }],
    });
    expect(e).toEqual({
      dir: '2025-06-01-x',
      date: '2025-06-01',
      startedAt: '2025-06-01T10:00:00Z',
      scenario: 'x',
      target: 'process',
      cycles: 30,
      successes: 30,
      trials: 30,
      wilsonLo: 0.886,
      p95Ms: 271,
      downtimeN: null,
      negativeControl: false,
      verdict: 'insufficient',
    });
  });
  test('wrong types become nulls and a bad date falls back to the folder date', () => {
    const e = entryFromSummary('2025-06-01-x', '2025-06-01', {
      date: '<b>',
      killResume: 'nope',
      downtimeMs: { p95: '1' },
      violations: 2,
    });
    expect(e).toMatchObject({
      date: '2025-06-01',
      scenario: '2025-06-01-x',
      wilsonLo: null,
      p95Ms: null,
      verdict: 'fail',
    });
    expect(entryFromSummary('d', '2025-01-01', null).verdict).toBe('none');
  });
});

describe('the verdict on the index', () => {
  const control = {
    date: '2025-06-01',
    negativeControl: true,
    killResume: { successes: 0, trials: 12 },
    violations: 23,
    gates: [{ verdict: 'pass' }, { verdict: 'fail' }, { verdict: 'insufficient' }],
  };
  test('a caught negative control in an old summary.json (no verdict field) is a pass, as on its own page', () => {
    expect(entryFromSummary('2025-06-01-c', '2025-06-01', control).verdict).toBe('pass');
    expect(entryFromSummary('2025-06-01-c', '2025-06-01', { ...control, violations: 0 }).verdict).toBe('fail');
    const none = { ...control, violations: 0, killResume: { trials: 0 } };
    expect(entryFromSummary('2025-06-01-c', '2025-06-01', none).verdict).toBe('insufficient');
  });
  test('the stored verdict wins over the stored fields; an unknown level falls back to the lattice', () => {
    const stored = { ...control, verdict: { level: 'insufficient', headline: 'INSUFFICIENT DATA: ...', detail: '' } };
    expect(entryFromSummary('d', '2025-06-01', stored).verdict).toBe('insufficient');
    expect(entryFromSummary('d', '2025-06-01', { ...control, verdict: { level: 'maybe' } }).verdict).toBe('pass');
    expect(entryFromSummary('d', '2025-06-01', { gates: [{ verdict: 'pass' }, { verdict: '?' }] }).verdict).toBe(
      'insufficient',
    );
  });
  test('the index page of a report written for a caught negative control says pass', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'soak-index-'));
    try {
      const a = makeAnalysis({ cycles: 10 });
      const analysis = { ...a, summary: { ...a.summary, negativeControl: true, violations: 4 } };
      const { dir: report } = await writeReport({ analysis, gates: makeGates(analysis), reportsDir: dir });
      const json = JSON.parse(await readFile(path.join(report, 'summary.json'), 'utf8')) as Record<string, unknown>;
      expect(json['verdict']).toEqual({
        level: 'pass',
        headline: 'PASS: the negative control was caught',
        detail:
          'This run planted a fault on purpose; the checker reported 4 violations in 10 cycles, so it can fail when it should. The gates below are expected to fail.',
      });
      const index = await readFile(path.join(dir, 'index.html'), 'utf8');
      expect(index).toContain('<span class="pill pass">pass</span>');
      expect(index).not.toContain('<span class="pill fail">');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('listReports', () => {
  test('newest first; unreadable and non-report folders handled', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'soak-list-'));
    try {
      const put = async (name: string, json: string | null) => {
        await mkdir(path.join(dir, name));
        if (json !== null) await writeFile(path.join(dir, name, 'summary.json'), json);
      };
      await put(
        '2025-06-01-a',
        JSON.stringify({ date: '2025-06-01', startedAt: '2025-06-01T08:00:00Z', scenario: 'a' }),
      );
      await put(
        '2025-06-01-a-2',
        JSON.stringify({ date: '2025-06-01', startedAt: '2025-06-01T09:00:00Z', scenario: 'a' }),
      );
      await put('2025-06-03-b', '{ torn');
      await put('.tmp-report-123-abc', JSON.stringify({ date: '2025-07-01' }));
      await put('notes', null);
      const entries = await listReports(dir);
      expect(entries.map((e) => [e.dir, e.verdict])).toEqual([
        ['2025-06-03-b', 'unreadable'],
        ['2025-06-01-a-2', 'none'],
        ['2025-06-01-a', 'none'],
      ]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
