// The metrics table, row by row: every METRICS metric with every statistic its kind allows, measured on a hand-made
// summary, against hand-computed figures (value, n, 95% interval; the one-sided bounds of a distribution statistic).
// Order-statistic ranks: exact binomial sums over n = 100 (1..100 sorted, so rank r is the value r); Wilson bounds:
// the score interval's closed form, evaluated apart from the code (n/n: lo = n / (n + z^2); 0/n: hi = z^2 / (n + z^2)).
import { describe, expect, it } from 'vitest';
import type { Distribution, Summary } from '../../harness/analysis/summary.js';
import { checkStat, measure, METRICS, type Measurement } from '../../harness/gates/metrics.js';
import { parseStatistic, parseThreshold } from '../../harness/gates/threshold.js';
import type { GateEvidence, MetricKind, Threshold } from '../../harness/gates/types.js';

/** One row: measure `stat` of `metric` on `fix` and expect these figures (`more`: other Measurement fields). */
interface Row {
  metric: string;
  kind: MetricKind;
  /** The measurement's unit: the metric's, except a rate's failures or successes, which count its trials. */
  unit: string;
  stat: string;
  fix: Fixture;
  value: number | null;
  n: number;
  interval: [number, number] | null;
  more?: Partial<Measurement>;
}
interface Fixture {
  summary: Partial<Summary>;
  evidence: GateEvidence;
}

const DIST_FACTORS = [
  ['bootMs', 1],
  ['downtimeMs', 2],
  ['checkpointPauseMs', 3],
  ['checkpointWriteMs', 4],
  ['restoreMs', 5],
] as const;
type DistMetric = (typeof DIST_FACTORS)[number][0];

/** The sample f, 2f, ..., 100f and its type-7 summary: p50 = 50.5f, p90 = 90.1f, p95 = 95.05f, p99 = 99.01f. */
function hundred(f: number): Distribution {
  return { n: 100, min: f, p50: 50.5 * f, p90: 90.1 * f, p95: 95.05 * f, p99: 99.01 * f, max: 100 * f, mean: 50.5 * f };
}
const oneTo = (n: number, f: number): number[] => Array.from({ length: n }, (_, i) => (i + 1) * f);

/** One discipline's effects: 20 logical effects, 5 re-emitted, `dup` of them applied again. */
function ef(dup: number) {
  const c = { emitted: 25, first: 20, reEmitted: 5, duplicates: dup, deduplicated: 5 - dup, worldAhead: 5, lost: 0 };
  return { ...c, duplicates95: null, worldAhead95: null, lost95: null, reEmittedPerResume: null };
}

/**
 * The shared fixture: every distribution metric its own scale (so a metric reading another's field shows), the four
 * rates 8/10, 20/20, 0/5 and 20/20, counts and a ratio.
 */
const FIX: Fixture = {
  summary: {
    ...Object.fromEntries(DIST_FACTORS.map(([m, f]) => [m, hundred(f)])),
    killResume: { successes: 8, trials: 10, wilson95: null },
    noncePreserved: { trials: 20, preserved: 20 },
    tornCheckpoint: { trials: 5, previousRestored: 0 },
    violations: 0,
    lostSteps: { n: 10, max: 19, mean: 9.5 },
    dedup: { checkpoints: 35, logicalBytes: 700, storedBytes: 40, ratio: 17.5 },
    effects: { accountings: 3, resumes: 2, disciplines: { 'step-key': ef(0), 'random-key': ef(5), 'no-key': ef(5) } },
    guestState: {
      ...{ examined: 10, unprobed: 0, unexamined: 0, problems: [], classes: [], promised: ['tmp-file', 'shm-file'] },
      promisedKept: { successes: 20, trials: 20, wilson95: null },
    },
  },
  evidence: { samples: Object.fromEntries(DIST_FACTORS.map(([m, f]) => [m, oneTo(100, f)])), lostBeyondCheckpoint: 2 },
};

/** 40 samples all 12.5f: the bootstrap interval of their mean is [12.5f, 12.5f] exactly. */
function constant(metric: DistMetric, f: number): Fixture {
  const c = 12.5 * f;
  const d = { n: 40, min: c, p50: c, p90: c, p95: c, p99: c, max: c, mean: c };
  return { summary: { [metric]: d }, evidence: { samples: { [metric]: Array<number>(40).fill(c) } } };
}

/**
 * Per distribution statistic: the value on hundred(1), its two-sided 95% interval (ranks) and one-sided 95% bounds
 * (the ranks of the two-sided 90% interval); null: the rank falls outside 1..100. min and max have neither.
 */
const DIST_CASES: [
  stat: string,
  value: number,
  interval: [number, number] | null,
  ends: [number, number | null] | null,
][] = [
  ['p50', 50.5, [40, 61], [42, 59]],
  ['p90', 90.1, [84, 96], [85, 96]],
  ['p95', 95.05, [90, 100], [91, 99]],
  ['p99', 99.01, null, [97, null]], // rank 101 above: no two-sided interval, no upper bound
  ['min', 1, null, null],
  ['max', 100, null, null],
];
const scaled = <T extends number | null>(xs: readonly T[], f: number): T[] =>
  xs.map((x) => (x === null ? x : x * f) as T);

/** Wilson score bounds [lo, hi] of the three rates at 90, 95 and 99%. */
const WILSON: Record<string, Record<number, [number, number]>> = {
  '8/10': {
    90: [0.540792805687488, 0.931442012262468],
    95: [0.4901624715366418, 0.9433178485456248], // the textbook 8/10: [0.4902, 0.9433]
    99: [0.4008186965216716, 0.9598688474953836],
  },
  '20/20': { 90: [0.8808421626390356, 1], 95: [0.8388748419471806, 1], 99: [0.7508945989012465, 1] },
  '0/5': { 90: [0, 0.35111650076510126], 95: [0, 0.43448246478317476], 99: [0, 0.5702583210270092] },
};
const RATES = [
  ['killResume', '8/10', 8, 10, 'trials'],
  ['noncePreserved', '20/20', 20, 20, 'trials'],
  ['tornCheckpoint', '0/5', 0, 5, 'torn-write kills'],
  ['effectsExactlyOnce', '20/20', 20, 20, 'step-key effects'],
  ['promisedStateKept', '20/20', 20, 20, 'promised observations'],
] as const;

const summaryWith = (s: Partial<Summary>, evidence: GateEvidence = {}): Fixture => ({
  summary: { ...FIX.summary, ...s },
  evidence,
});

const ROWS: Row[] = [
  ...DIST_FACTORS.flatMap(([metric, f]): Row[] => [
    ...DIST_CASES.map(([stat, value, interval, ends]): Row => ({
      metric,
      kind: 'distribution',
      unit: 'ms',
      stat,
      fix: FIX,
      value: value * f,
      n: 100,
      interval: interval && (scaled(interval, f) as [number, number]),
      more: { ends: ends && (scaled(ends, f) as [number, number | null]), observed: value * f, judged: 'point' },
    })),
    // the mean is read from the summary (50.5f); without raw samples its interval is unknown, from constant ones exact
    {
      metric,
      kind: 'distribution',
      unit: 'ms',
      stat: 'mean',
      fix: { summary: FIX.summary, evidence: {} },
      value: 50.5 * f,
      n: 100,
      interval: null,
      more: { ends: [null, null], note: 'raw samples not kept: the 95% interval of mean over 100 samples is unknown' },
    },
    {
      metric,
      kind: 'distribution',
      unit: 'ms',
      stat: 'mean',
      fix: constant(metric, f),
      value: 12.5 * f,
      n: 40,
      interval: [12.5 * f, 12.5 * f],
      more: { ends: [12.5 * f, 12.5 * f], note: 'bootstrap 95% interval' },
    },
    // nothing measured: no value, no interval
    {
      metric,
      kind: 'distribution',
      unit: 'ms',
      stat: 'p95',
      fix: { summary: { [metric]: { ...hundred(f), n: 0, p95: null } }, evidence: {} },
      value: null,
      n: 0,
      interval: null,
      more: { ends: null },
    },
  ]),
  ...RATES.flatMap(([metric, rate, k, n, of]): Row[] => [
    ...([90, 95, 99] as const).flatMap((level) =>
      (['lo', 'hi'] as const).map((side): Row => {
        const interval = WILSON[rate]![level]!;
        const value = side === 'lo' ? interval[0] : interval[1];
        const judged = side === 'lo' ? 'lower' : 'upper';
        const stat = `wilson${level}.${side}`;
        return {
          metric,
          kind: 'rate',
          unit: '%',
          stat,
          fix: FIX,
          value,
          n,
          interval,
          more: { judged, observed: k / n },
        };
      }),
    ),
    ...(['failures', 'successes'] as const).map((stat): Row => {
      const value = stat === 'failures' ? n - k : k;
      const more = { judged: 'point' as const, observed: value, successes: k, growsOnly: stat === 'failures' };
      return { metric, kind: 'rate', unit: of, stat, fix: FIX, value, n, interval: WILSON[rate]![95]!, more };
    }),
  ]),
  // a rate with no trials: nothing to judge
  {
    metric: 'killResume',
    kind: 'rate',
    unit: '%',
    stat: 'wilson95.lo',
    fix: summaryWith({ killResume: { successes: 0, trials: 0, wilson95: null } }),
    value: null,
    n: 0,
    interval: null,
  },
  {
    metric: 'tornCheckpoint',
    kind: 'rate',
    unit: 'torn-write kills',
    stat: 'failures',
    fix: summaryWith({ tornCheckpoint: { trials: 0, previousRestored: 0 } }),
    value: null,
    n: 0,
    interval: null,
  },
  // counts: 5 - 0 unsafe torn kills of 5; 0 violations in 10 checked cycles (0/10: hi = z^2 / (10 + z^2) = 27.75%)
  {
    metric: 'tornCheckpointUnsafe',
    kind: 'count',
    unit: 'torn-write kills',
    stat: 'count',
    fix: FIX,
    value: 5,
    n: 5,
    interval: null,
  },
  {
    metric: 'violations',
    kind: 'count',
    unit: 'violations',
    stat: 'count',
    fix: FIX,
    value: 0,
    n: 10,
    interval: null,
    more: { note: '0 in 10 checked cycles: rate < 27.8% (95% upper bound)', growsOnly: true },
  },
  {
    metric: 'violations',
    kind: 'count',
    unit: 'violations',
    stat: 'count',
    fix: summaryWith({ killResume: { successes: 0, trials: 0, wilson95: null } }),
    value: null, // nothing checked: no value, not 0
    n: 0,
    interval: null,
  },
  // lost work beyond the checkpoint, each way it can be known, plus nonce losses (20 - 18 = 2 in the last rows)
  {
    metric: 'lossBeyondCheckpoint',
    kind: 'count',
    unit: 'cycles',
    stat: 'count',
    fix: FIX,
    value: 2,
    n: 10,
    interval: null,
    more: { lowerBoundOnly: false },
  },
  {
    metric: 'lossBeyondCheckpoint',
    kind: 'count',
    unit: 'cycles',
    stat: 'count',
    fix: summaryWith({}, { lostStepsPerCycle: [3, 19, 40, null, 23], maxLostSteps: 22 }), // 40 and 23 > 22
    value: 2,
    n: 10,
    interval: null,
    more: { lowerBoundOnly: false },
  },
  {
    metric: 'lossBeyondCheckpoint',
    kind: 'count',
    unit: 'cycles',
    stat: 'count',
    fix: summaryWith({ noncePreserved: { trials: 20, preserved: 18 } }, { maxLostSteps: 19 }), // max lost 19 <= 19
    value: 2,
    n: 10,
    interval: null,
    more: { lowerBoundOnly: false },
  },
  {
    metric: 'lossBeyondCheckpoint',
    kind: 'count',
    unit: 'cycles',
    stat: 'count',
    fix: summaryWith({ noncePreserved: { trials: 20, preserved: 18 } }, { maxLostSteps: 18 }), // max 19 > 18: 1+
    value: 3,
    n: 10,
    interval: null,
    more: { lowerBoundOnly: true },
  },
  {
    metric: 'lossBeyondCheckpoint',
    kind: 'count',
    unit: 'cycles',
    stat: 'count',
    fix: summaryWith({}), // not measured: only a lower bound (the nonce losses, here 0)
    value: 0,
    n: 10,
    interval: null,
    more: { lowerBoundOnly: true },
  },
  { metric: 'dedup', kind: 'ratio', unit: 'x', stat: 'ratio', fix: FIX, value: 17.5, n: 35, interval: null },
  {
    metric: 'dedup',
    kind: 'ratio',
    unit: 'x',
    stat: 'ratio',
    fix: summaryWith({ dedup: { checkpoints: 0, logicalBytes: 0, storedBytes: 0, ratio: null } }),
    value: null,
    n: 0,
    interval: null,
  },
];

/** A threshold naming `stat` (the bar does not change what is measured, only a rate's note). */
const threshold = (stat: string): Threshold => parseThreshold(`${stat} >= 0.5`) as Threshold;

describe('measure, one row per metric and statistic', () => {
  it.each(ROWS.map((r) => [`${r.metric} ${r.stat} (n ${r.n})`, r] as const))('%s', (_, row) => {
    const m = measure(row.metric, threshold(row.stat), row.fix.summary, row.fix.evidence);
    expect({ kind: m.kind, unit: m.unit, n: m.n }).toEqual({ kind: row.kind, unit: row.unit, n: row.n });
    if (row.value === null) expect(m.value).toBeNull();
    else expect(m.value).toBeCloseTo(row.value, 12);
    if (row.interval === null) expect(m.interval).toBeNull();
    else {
      expect(m.interval?.[0]).toBeCloseTo(row.interval[0], 12);
      expect(m.interval?.[1]).toBeCloseTo(row.interval[1], 12);
    }
    if (row.more) expect(m).toMatchObject(row.more);
  });
});

/** Every statistic a threshold may name, and which metric kinds allow it. */
const ALLOWED: Record<MetricKind, string[]> = {
  distribution: ['p50', 'p90', 'p95', 'p99', 'min', 'max', 'mean'],
  rate: [
    'wilson90.lo',
    'wilson90.hi',
    'wilson95.lo',
    'wilson95.hi',
    'wilson99.lo',
    'wilson99.hi',
    'failures',
    'successes',
  ],
  count: ['count'],
  ratio: ['ratio'],
};

describe('the table covers the metrics table', () => {
  it('has a row for every METRICS metric with every statistic its kind allows, in the kind and unit METRICS gives', () => {
    for (const [metric, def] of Object.entries(METRICS)) {
      const rows = ROWS.filter((r) => r.metric === metric);
      expect(new Set(rows.map((r) => r.kind)), metric).toEqual(new Set([def.kind]));
      expect([...new Set(rows.map((r) => r.stat))].sort(), metric).toEqual([...ALLOWED[def.kind]].sort());
      const metricUnit = rows.filter((r) => r.stat !== 'failures' && r.stat !== 'successes').map((r) => r.unit);
      expect(new Set(metricUnit), metric).toEqual(new Set([def.unit]));
    }
    expect(new Set(ROWS.map((r) => r.metric))).toEqual(new Set(Object.keys(METRICS)));
  });

  it('refuses every statistic of another kind (and a quantile no summary keeps), naming the kind', () => {
    const all = [...Object.values(ALLOWED).flat(), 'p97', 'p99.9'];
    for (const [metric, def] of Object.entries(METRICS)) {
      for (const name of all) {
        const ok = ALLOWED[def.kind].includes(name);
        const said = checkStat(metric, parseStatistic(name)!);
        expect([metric, name, said === null]).toEqual([metric, name, ok]);
        if (!ok) expect(said).toContain(`is not available for metric "${metric}" (${def.kind})`);
      }
    }
  });

  it('will not measure a statistic the metric lacks even when load is bypassed', () => {
    expect(() => measure('killResume', threshold('p95'), FIX.summary)).toThrow(/not available for metric "killResume"/);
    expect(() => measure('downtimeMs', threshold('count'), FIX.summary)).toThrow(RangeError);
  });
});
