// The one table of gate metrics: how each metric name reads the summary (and optional evidence), and what a stat of it measures.
import type { GateEvidence, MetricKind, Statistic, Threshold } from './types.js';
import { DIST_STATS, distKey, distributionInterval, isDistStatistic } from './distribution-interval.js';
import { statName } from './threshold.js';
import { countLostBeyond } from '../stats/lost-work.js';
import { wilson, zeroFailureTrialsNeeded } from '../stats/wilson.js';
import { clusteredRate } from './clustered-rate.js';
import type { Distribution, Summary } from '../analysis/summary.js';
import { exactlyOnceTrials } from '../analysis/effects-tally.js';
import { promisedKeptTrials, promises } from '../analysis/guest-state-tally.js';

export type { MetricKind } from './types.js';

/** What a metric reads off a summary; `of` names what a rate's trials or a count's n are (for notes). */
type Reading =
  | { kind: 'distribution'; dist: Distribution | undefined; samples: ArrayLike<number> | undefined }
  | { kind: 'rate'; successes: number; trials: number; of: string }
  | { kind: 'count'; count: number | null; n: number; of: string; lowerBoundOnly: boolean; note: string }
  | { kind: 'ratio'; ratio: number | null; n: number };

/** One row of the metrics table: the metric's kind, the unit of its values, and how to read it. */
interface MetricDef {
  kind: MetricKind;
  /** "ms" for durations, "%" for a rate's proportion, "x" for a ratio, for a count what it counts. */
  unit: string;
  read(s: Partial<Summary>, e: GateEvidence): Reading;
  /** False when the run cannot say anything of the metric (no effects emitted): its gates are left out, not judged. */
  applies?(s: Partial<Summary>): boolean;
}

function dist(key: 'bootMs' | 'downtimeMs' | 'checkpointPauseMs' | 'checkpointWriteMs' | 'restoreMs'): MetricDef {
  return {
    kind: 'distribution',
    unit: 'ms',
    read: (s, e) => ({ kind: 'distribution', dist: s[key], samples: e.samples?.[key] }),
  };
}

/** A success rate over `of`: how many of how many trials, read from the summary; judged on its Wilson interval. */
function rate(of: string, count: (s: Partial<Summary>) => [successes: number, trials: number]): MetricDef {
  return {
    kind: 'rate',
    unit: '%',
    read: (s) => ({ kind: 'rate', successes: count(s)[0], trials: count(s)[1], of }),
  };
}

/** Cycles that lost work beyond the last complete checkpoint or lost the session nonce; a lower bound when loss was not measured. */
function lossBeyondCheckpoint(s: Partial<Summary>, e: GateEvidence): Reading {
  const n = s.killResume?.trials ?? 0;
  const nonceLost = s.noncePreserved ? s.noncePreserved.trials - s.noncePreserved.preserved : 0;
  const base = { kind: 'count' as const, n, of: 'checked cycles' };
  if (e.lostBeyondCheckpoint !== undefined) {
    return {
      ...base,
      count: e.lostBeyondCheckpoint + nonceLost,
      lowerBoundOnly: false,
      note: `${e.lostBeyondCheckpoint} lost beyond checkpoint, ${nonceLost} nonce lost`,
    };
  }
  if (e.lostStepsPerCycle !== undefined && e.maxLostSteps !== undefined) {
    const limit = e.maxLostSteps;
    const beyond = countLostBeyond(e.lostStepsPerCycle, limit);
    return {
      ...base,
      count: beyond + nonceLost,
      lowerBoundOnly: false,
      note: `${beyond} lost > ${limit} steps, ${nonceLost} nonce lost`,
    };
  }
  const max = s.lostSteps?.max ?? null;
  if (e.maxLostSteps !== undefined && max !== null && max <= e.maxLostSteps) {
    return {
      ...base,
      count: nonceLost,
      lowerBoundOnly: false,
      note: `max lost ${max} <= ${e.maxLostSteps} steps, ${nonceLost} nonce lost`,
    };
  }
  const known = e.maxLostSteps !== undefined && max !== null ? 1 : 0; // max > limit: at least one cycle lost too much
  return {
    ...base,
    count: nonceLost + known,
    lowerBoundOnly: true,
    note: known
      ? `max lost ${max} > ${e.maxLostSteps} steps (per-cycle counts not given)`
      : 'lost work beyond the checkpoint was not measured (no GateEvidence.lostBeyondCheckpoint / maxLostSteps)',
  };
}

/** Metric name -> how to read it. Adding a metric is one line here. */
export const METRICS: Record<string, MetricDef> = {
  bootMs: dist('bootMs'),
  downtimeMs: dist('downtimeMs'),
  checkpointPauseMs: dist('checkpointPauseMs'),
  checkpointWriteMs: dist('checkpointWriteMs'),
  restoreMs: dist('restoreMs'),
  killResume: rate('trials', (s) => [s.killResume?.successes ?? 0, s.killResume?.trials ?? 0]),
  noncePreserved: rate('trials', (s) => [s.noncePreserved?.preserved ?? 0, s.noncePreserved?.trials ?? 0]),
  tornCheckpoint: rate('torn-write kills', (s) => [
    s.tornCheckpoint?.previousRestored ?? 0,
    s.tornCheckpoint?.trials ?? 0,
  ]),
  tornCheckpointUnsafe: {
    kind: 'count',
    unit: 'torn-write kills',
    read: (s) => {
      const t = s.tornCheckpoint;
      return {
        kind: 'count',
        count: t ? t.trials - t.previousRestored : null,
        n: t?.trials ?? 0,
        of: 'torn-write kills',
        lowerBoundOnly: false,
        note: '',
      };
    },
  },
  violations: {
    kind: 'count',
    unit: 'violations',
    read: (s) => ({
      kind: 'count',
      count: s.violations ?? null,
      n: s.killResume?.trials ?? 0,
      of: 'checked cycles',
      lowerBoundOnly: false,
      note: '',
    }),
  },
  lossBeyondCheckpoint: { kind: 'count', unit: 'cycles', read: lossBeyondCheckpoint },
  effectsExactlyOnce: { ...rate('step-key effects', (s) => exactlyOnceTrials(s.effects)), applies: (s) => !!s.effects },
  promisedStateKept: { ...rate('promised observations', (s) => promisedKeptTrials(s.guestState)), applies: promises },
  dedup: {
    kind: 'ratio',
    unit: 'x',
    read: (s) => ({ kind: 'ratio', ratio: s.dedup?.ratio ?? null, n: s.dedup?.checkpoints ?? 0 }),
  },
};

const STATS: Record<MetricKind, string> = {
  distribution: DIST_STATS.join(', '),
  rate: 'wilsonNN.lo, wilsonNN.hi (NN = confidence % from 10 to 99, e.g. wilson95.lo), failures, successes',
  count: 'count',
  ratio: 'ratio',
};

/** Whether a metric of this kind has the statistic (a distribution: only the figures its summary keeps). */
function allows(kind: MetricKind, stat: Statistic): boolean {
  switch (kind) {
    case 'distribution':
      return isDistStatistic(stat);
    case 'rate':
      return stat.kind === 'wilson' || stat.kind === 'failures' || stat.kind === 'successes';
    case 'count':
    case 'ratio':
      return stat.kind === kind;
  }
}

/** Null when `stat` is valid for the metric's kind, else a message naming the valid stats. */
export function checkStat(metric: string, stat: Statistic): string | null {
  const def = METRICS[metric];
  if (def === undefined) return null; // the metric field reports this
  return allows(def.kind, stat)
    ? null
    : `stat "${statName(stat)}" is not available for metric "${metric}" (${def.kind}); use one of: ${STATS[def.kind]}`;
}

/** What one gate measured: the judged value, its interval, the sample size and how to judge it. */
export interface Measurement {
  /** The metric's kind. */
  kind: MetricKind;
  /** Unit of value and interval: the metric's, except a rate's failures or successes, which count its trials. */
  unit: string;
  value: number | null;
  /** What was observed: a rate's successes / trials, otherwise the value. */
  observed: number | null;
  /** A rate's successes; null for other kinds. */
  successes: number | null;
  /** Which figure `value` is: the point estimate, or an end of the interval. */
  judged: 'point' | 'lower' | 'upper';
  interval: [number, number] | null;
  /** A distribution statistic's interval ends one by one (null: unbounded or unknown); null when it has none. */
  ends: [number | null, number | null] | null;
  n: number;
  note: string;
  /** The value is only a lower bound on a count (part of it was not measured). */
  lowerBoundOnly: boolean;
  /** A count that can only grow with more data, so once it violates the threshold the verdict is final. */
  growsOnly: boolean;
}

function pct(x: number): string {
  return `${(x * 100).toFixed(1)}%`;
}

/** Measure the statistic `threshold.stat` of `metric` on a summary (plus optional evidence). */
export function measure(
  metric: string,
  threshold: Threshold,
  summary: Partial<Summary>,
  evidence: GateEvidence = {},
): Measurement {
  const def = METRICS[metric];
  if (def === undefined) throw new RangeError(`unknown gate metric "${metric}"`);
  const r = def.read(summary, evidence);
  const stat = threshold.stat;
  if (!allows(def.kind, stat)) throw new RangeError(checkStat(metric, stat) ?? ''); // load.ts refuses it first
  const none = {
    kind: def.kind,
    unit: def.unit,
    interval: null,
    ends: null,
    note: '',
    lowerBoundOnly: false,
    growsOnly: false,
    successes: null,
    judged: 'point' as const,
  };
  switch (r.kind) {
    case 'distribution': {
      if (!isDistStatistic(stat)) throw new RangeError(`no ${statName(stat)} of a distribution`); // allows() checked it
      const value = r.dist?.[distKey(stat)!] ?? null;
      const n = r.dist?.n ?? 0;
      const { interval, ends, note } =
        value === null
          ? { interval: null, ends: null, note: '' }
          : distributionInterval(stat, r.samples, evidence.seed ?? 1, n);
      return { ...none, value, observed: value, interval, ends, n, note };
    }
    case 'rate': {
      const failures = r.trials - r.successes;
      if (stat.kind !== 'wilson') {
        const value = stat.kind === 'failures' ? failures : r.successes;
        return {
          ...none,
          unit: r.of,
          value: r.trials > 0 ? value : null,
          observed: r.trials > 0 ? value : null,
          successes: r.successes,
          interval: wilson(r.successes, r.trials),
          n: r.trials,
          growsOnly: stat.kind === 'failures',
          note: `${failures} failed of ${r.trials} ${r.of}`,
        };
      }
      const level = stat.level / 100;
      const clustered = clusteredRate(evidence, (s) => def.read(s, {}), level);
      const interval = clustered ? clustered.interval : wilson(r.successes, r.trials, level);
      const value = interval === null ? null : stat.side === 'lo' ? interval[0] : interval[1];
      const needs =
        stat.side === 'lo' &&
        (threshold.op === '>=' || threshold.op === '>') &&
        threshold.bound > 0 &&
        threshold.bound < 1;
      const prefix = needs ? `n needed with zero failures: ${zeroFailureTrialsNeeded(threshold.bound, level)}; ` : '';
      return {
        ...none,
        value,
        observed: r.trials > 0 ? r.successes / r.trials : null,
        // clustered: the effective counts (the anytime test reads them too), the raw ones in the note
        successes:
          clustered && r.trials > 0 ? Math.round((r.successes * clustered.effectiveN) / r.trials) : r.successes,
        judged: stat.side === 'lo' ? 'lower' : 'upper',
        interval,
        n: clustered ? clustered.effectiveN : r.trials,
        note: [`${prefix}${r.successes}/${r.trials} ${r.of} ok`, clustered?.note].filter(Boolean).join('; '),
      };
    }
    case 'count': {
      let note = r.note;
      if (r.count === 0 && r.n > 0 && !r.lowerBoundOnly) {
        const hi = wilson(0, r.n)?.[1] ?? 1;
        note = [note, `0 in ${r.n} ${r.of}: rate < ${pct(hi)} (95% upper bound)`].filter(Boolean).join('; ');
      } else if (r.count !== null && r.count > 0) {
        note = [`${r.count}${r.lowerBoundOnly ? '+' : ''} in ${r.n} ${r.of}`, note].filter(Boolean).join('; ');
      }
      const value = r.n === 0 && !(r.count !== null && r.count > 0) ? null : r.count; // nothing observed: no value, not 0
      return { ...none, value, observed: value, n: r.n, note, lowerBoundOnly: r.lowerBoundOnly, growsOnly: true };
    }
    case 'ratio':
      return {
        ...none,
        value: r.ratio,
        observed: r.ratio,
        n: r.n,
        note: r.ratio === null ? '' : `logical / stored bytes over ${r.n} checkpoints`,
      };
  }
}

/** Units that are a time: a metric measured in one of these can be slowed down by a busy machine. */
const TIME_UNITS: ReadonlySet<string> = new Set(['ms', 's']);

/** Whether `metric` measures a time (its unit in METRICS is one): its gates are timing gates (gates/verdict.ts). */
export function isTimeMetric(metric: string): boolean {
  const def = METRICS[metric];
  return def !== undefined && TIME_UNITS.has(def.unit);
}
