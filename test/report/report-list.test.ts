import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { entryFromSummary, listReports } from '../../harness/report/report-list.js';

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
