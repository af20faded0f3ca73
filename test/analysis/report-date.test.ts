// The dated report's day: the night key when it is a date (a night that starts before midnight is filed under its
// night), else the run start's UTC day; checked on a real journal written as a report.
import { mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadRuns } from '../../harness/analysis/load-runs.js';
import { keyDate, reportDate, reportDateBasis } from '../../harness/analysis/report-date.js';
import { judge } from '../../harness/gates/judge.js';
import { encodeEvent } from '../../harness/journal/codec.js';
import type { JournalEvent, RunStartEvent } from '../../harness/journal/events.js';
import { writeReport } from '../../harness/report/write.js';
import { fixturePath } from '../helpers/paths.js';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'soak-report-date-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('reportDate', () => {
  it('takes a night key that is a calendar date', () => {
    expect(reportDate('2026-11-30T23:58:10.000Z', '2026-12-01')).toBe('2026-12-01');
    expect(keyDate('2024-02-29')).toBe('2024-02-29');
    expect(reportDateBasis('2026-12-01', '2026-12-01')).toBe('night key');
    expect(reportDateBasis('2026-11-30', undefined)).toBe('UTC');
  });

  it('keeps the run start UTC day with no key, or a key that is not a calendar date', () => {
    expect(reportDate('2026-11-30T23:58:10.000Z')).toBe('2026-11-30');
    for (const key of ['release-7', '2026-13-01', '2026-02-30', '2023-02-29', '2026-12-1', '2026-12-01x', ''])
      expect([key, reportDate('2026-11-30T23:58:10.000Z', key)]).toEqual([key, '2026-11-30']);
  });
});

/** A copy of the stored process-default journal whose run started at `startedAt`, seeded from `seedKey` if given. */
function journalStarting(name: string, startedAt: string, seedKey?: string): string {
  const src = readFileSync(fixturePath('journals', 'process-default', 'journal.ndjson'), 'utf8').split('\n');
  const start = JSON.parse(src[0]!) as RunStartEvent;
  expect(start.type).toBe('run-start');
  const { seedKey: _old, ...rest } = start;
  const moved: JournalEvent = { ...rest, startedAt, ...(seedKey !== undefined ? { seedKey } : {}) };
  const dir = path.join(tmp, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'journal.ndjson'), [encodeEvent(moved), ...src.slice(1)].join('\n'));
  return dir;
}

describe('the dated report folder', () => {
  const reports = path.join(tmp, 'reports');
  /** Per report folder: what its date is labelled as on the page and in summary.md. */
  const labels = new Map<string, Array<string | undefined>>();
  const folderOf = async (run: string): Promise<string> => {
    const { analysis } = await loadRuns([run]);
    const { dir } = await writeReport({ analysis, gates: judge(analysis).gates, reportsDir: reports });
    const summary = JSON.parse(readFileSync(path.join(dir, 'summary.json'), 'utf8')) as { date: string };
    expect(path.basename(dir).startsWith(`${summary.date}-`)).toBe(true);
    labels.set(path.basename(dir), [
      /<span>\d{4}-\d{2}-\d{2} \((night key|UTC)\)<\/span>/.exec(
        readFileSync(path.join(dir, 'index.html'), 'utf8'),
      )?.[1],
      /^\| Date \((night key|UTC)\) \|/m.exec(readFileSync(path.join(dir, 'summary.md'), 'utf8'))?.[1],
    ]);
    return path.basename(dir);
  };

  it('is the night key for a night that started before midnight', async () => {
    expect(await folderOf(journalStarting('keyed', '2026-11-30T23:58:10.000Z', '2026-12-01'))).toBe(
      '2026-12-01-default',
    );
    expect(labels.get('2026-12-01-default')).toEqual(['night key', 'night key']);
  });

  it('is the run start day without a key (the same start, so the key above made the difference)', async () => {
    expect(await folderOf(journalStarting('unkeyed', '2026-11-30T23:58:10.000Z'))).toBe('2026-11-30-default');
    expect(await folderOf(journalStarting('named', '2026-11-30T23:58:10.000Z', 'release-7'))).toBe(
      '2026-11-30-default-2',
    );
    expect(labels.get('2026-11-30-default')).toEqual(['UTC', 'UTC']);
    expect(labels.get('2026-11-30-default-2')).toEqual(['UTC', 'UTC']); // a key that is not a date labels nothing
  });
});
