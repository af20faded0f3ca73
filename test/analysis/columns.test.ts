// Growable columns and key ordering behind the analysis tables, with exact expected values.
import { describe, expect, it } from 'vitest';
import { cycleRows, cycleTable, CycleTableBuilder } from '../../harness/analysis/tables.js';
import {
  ascendingOrder,
  countMissing,
  Float64Column,
  lastWinsOrder,
  runningTotals,
  sortedDistinct,
  StringColumn,
  sumInOrder,
} from '../../harness/analysis/columns.js';
import type { CycleRow } from '../../harness/analysis/summary.js';

const f64 = (...xs: number[]): Float64Array => Float64Array.from(xs);

describe('Float64Column and StringColumn', () => {
  it('grow past their first capacity, keep order, and append with an offset', () => {
    const c = new Float64Column();
    for (let i = 0; i < 5000; i++) c.push(i);
    c.pushAll(f64(1, 2), 2 ** 32);
    c.pushAll(new Float64Array(3000).fill(7));
    expect(c.length).toBe(8002);
    const v = c.view();
    expect([v[0], v[4999], v[5000], v[5001], v[8001]]).toEqual([0, 4999, 2 ** 32 + 1, 2 ** 32 + 2, 7]);
  });

  it('a string column survives encoding for another thread, mapping codes to its own', () => {
    const a = new StringColumn<string>();
    for (const s of ['ok', 'fail', 'ok', 'info']) a.push(s);
    const b = new StringColumn<string>();
    b.push('info');
    b.pushEncoded(a.encode());
    expect(b.values).toEqual(['info', 'ok', 'fail', 'ok', 'info']);
    expect(a.encode()).toEqual({ names: ['ok', 'fail', 'info'], codes: Uint32Array.of(0, 1, 0, 2) });
  });
});

describe('key ordering', () => {
  it('lastWinsOrder: null for strictly ascending keys (no sort); otherwise key order keeping the last row of a repeated key', () => {
    expect(lastWinsOrder(f64(1, 2, 5))).toBeNull();
    expect([...lastWinsOrder(f64(3, 1, 2, 1, 3))!]).toEqual([3, 2, 4]);
    expect([...lastWinsOrder(f64(1, 1))!]).toEqual([1]);
    expect(lastWinsOrder(f64())).toBeNull();
  });

  it('ascendingOrder is stable (equal values keep row order), and the identity when already ascending', () => {
    expect([...ascendingOrder(f64(2, 1, 2, 1))]).toEqual([1, 3, 0, 2]);
    expect([...ascendingOrder(f64(1, 1, 2))]).toEqual([0, 1, 2]);
  });

  it('sortedDistinct and countMissing count started cycles that never finished', () => {
    expect([...sortedDistinct(f64(4, 1, 4, 2))]).toEqual([1, 2, 4]);
    expect(countMissing(f64(1, 2, 4, 7), f64(2, 3, 4))).toBe(2);
    expect(countMissing(f64(), f64(1))).toBe(0);
  });

  it('sumInOrder and runningTotals add left to right, as the journal was written', () => {
    const xs = f64(0.1, 0.2, 0.3);
    expect(sumInOrder(xs)).toBe(0.1 + 0.2 + 0.3);
    expect([...runningTotals(xs)]).toEqual([0.1, 0.1 + 0.2, 0.1 + 0.2 + 0.3]);
  });
});

describe('cycle tables', () => {
  const row = (cycle: number, outcome: CycleRow['outcome'], downtimeMs: number | null): CycleRow => ({
    cycle,
    phase: 'work',
    observedPhase: 'checkpoint',
    outcome,
    downtimeMs,
    killStep: 10,
    restoredSeq: null,
    restoredStep: 4,
    lostSteps: null,
    restoreKills: 1,
    violations: outcome === 'ok' ? '' : 'nonce',
  });

  it('rows go in and come out the same, nulls included', () => {
    const rows = [row(1, 'ok', 12.5), row(2, 'fail', null)];
    const t = cycleTable(rows);
    expect(t.length).toBe(2);
    expect(Number.isNaN(t.downtimeMs[1])).toBe(true);
    expect(cycleRows(t)).toEqual(rows);
  });

  it('build(order) keeps the chosen rows in that order; encode/append carries rows between builders', () => {
    const a = new CycleTableBuilder();
    for (const r of [row(3, 'ok', 1), row(1, 'fail', null), row(2, 'ok', 2)]) a.push(r);
    expect(cycleRows(a.build(Uint32Array.of(1, 2, 0))).map((r) => r.cycle)).toEqual([1, 2, 3]);
    const b = new CycleTableBuilder();
    b.push(row(9, 'indeterminate', null));
    b.append(a.encode());
    expect(cycleRows(b.build(null))).toEqual([
      row(9, 'indeterminate', null),
      row(3, 'ok', 1),
      row(1, 'fail', null),
      row(2, 'ok', 2),
    ]);
  });
});
