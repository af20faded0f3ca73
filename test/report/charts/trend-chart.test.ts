// The trend's x axis by night: one place per night from the first to the last, an empty one for a night without a
// report, a place of its own for a second report of one night; points ordered by night, then run start.
import { describe, expect, test } from 'vitest';
import { nightSlots, type TrendPoint } from '../../../harness/report/charts/trend-chart.js';
import { trendSeries } from '../../../harness/report/trend-series.js';
import type { ReportEntry } from '../../../harness/report/report-list.js';

const point = (night: string, startedAt = `${night}T10:00:00.000Z`): TrendPoint => ({
  night,
  startedAt,
  report: night,
  p95Ms: 300,
  downtimeN: 30,
  wilsonLo: 0.9,
  trials: 30,
  verdict: 'pass',
});

describe('nightSlots', () => {
  test('every night from first to last, a second report of one night beside it', () => {
    const points = [point('2025-06-01'), point('2025-06-01'), point('2025-06-04')];
    expect(nightSlots(points)).toEqual({
      slots: ['2025-06-01', '2025-06-01 (2)', '2025-06-02', '2025-06-03', '2025-06-04'],
      slotOf: ['2025-06-01', '2025-06-01 (2)', '2025-06-04'],
    });
  });
  test('over a month boundary; one night alone', () => {
    expect(nightSlots([point('2025-06-30'), point('2025-07-01')]).slots).toEqual(['2025-06-30', '2025-07-01']);
    expect(nightSlots([point('2025-06-30')]).slots).toEqual(['2025-06-30']);
  });
  test('a gap too long to show night by night keeps only the nights with a report', () => {
    expect(nightSlots([point('2024-01-01'), point('2025-06-01')]).slots).toEqual(['2024-01-01', '2025-06-01']);
  });
});

describe('trendSeries', () => {
  const entry = (dir: string, date: string, startedAt: string): ReportEntry => ({
    dir,
    date,
    startedAt,
    scenario: 'nightly',
    target: 'process',
    cycles: 30,
    successes: 30,
    trials: 30,
    wilsonLo: 0.88,
    p95Ms: 300,
    downtimeN: 30,
    negativeControl: false,
    verdict: 'pass',
  });
  test('points by night, not by run start: a night that started after midnight stays before the next night', () => {
    const [s] = trendSeries([
      entry('2025-06-02-nightly', '2025-06-02', '2025-06-02T22:00:00.000Z'),
      entry('2025-06-01-nightly', '2025-06-01', '2025-06-02T00:30:00.000Z'), // the night of 06-01, after midnight
      entry('2025-06-01-nightly-2', '2025-06-01', '2025-06-01T23:00:00.000Z'),
    ]);
    expect(s!.points.map((p) => [p.night, p.report])).toEqual([
      ['2025-06-01', '2025-06-01-nightly-2'],
      ['2025-06-01', '2025-06-01-nightly'],
      ['2025-06-02', '2025-06-02-nightly'],
    ]);
  });
});
