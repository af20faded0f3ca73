import { describe, expect, test } from 'vitest';
import {
  fmtBytes,
  fmtMs,
  fmtPct,
  fmtPctInterval,
  fmtPValue,
  fmtQuantile,
} from '../../../harness/report/text/format.js';
import { wilson } from '../../../harness/stats/wilson.js';

describe('format', () => {
  test('Wilson interval for 30/30 reads 88.6%-100% (lower bound rounded down)', () => {
    expect(fmtPctInterval(wilson(30, 30))).toBe('88.6%–100%');
    expect(fmtPctInterval(wilson(0, 30))).toBe('0%–11.4%');
  });
  test('percent rounding directions', () => {
    expect(fmtPct(0.88649, 'down')).toBe('88.6%');
    expect(fmtPct(0.88641, 'up')).toBe('88.7%');
    expect(fmtPct(0.5)).toBe('50%');
    expect(fmtPct(null)).toBe('n/a');
  });
  test('ms precision follows magnitude', () => {
    expect(fmtMs(0.4219)).toBe('0.42 ms');
    expect(fmtMs(12.34)).toBe('12.3 ms');
    expect(fmtMs(212.4)).toBe('212 ms');
    expect(fmtMs(12345.6)).toBe('12,346 ms');
    expect(fmtMs(null)).toBe('n/a');
  });
  test('bytes in binary units', () => {
    expect(fmtBytes(512)).toBe('512 B');
    expect(fmtBytes(1536)).toBe('1.5 KiB');
    expect(fmtBytes(93 * 2 ** 20)).toBe('93.0 MiB');
  });

  test('names quantiles by whole percent and p-values by three significant digits', () => {
    expect([0.5, 0.95, 0.99].map(fmtQuantile)).toEqual(['p50', 'p95', 'p99']);
    expect(fmtPValue(0.031249)).toBe('0.0312');
    expect(fmtPValue(1)).toBe('1.00');
  });
});
