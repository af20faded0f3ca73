// Threshold expressions `<stat> <op> <number>` (k6-like: "p95 < 2000", "wilson95.lo >= 0.95"): parse once into a typed
// statistic, then compare; the one parser of a statistic's name, and its one printer (statName).
import type { Statistic, Threshold, ThresholdOp } from './types.js';

const PATTERN =
  /^\s*([a-z][a-z0-9]*(?:\([0-9.]+\))?(?:\.[a-z]+)?)\s*(<=|>=|==|<|>)\s*([-+]?(?:\d+\.?\d*|\.\d+)(?:e[-+]?\d+)?)\s*$/i;

/** Parse a threshold expression; returns a message (no file prefix) when it is malformed. */
export function parseThreshold(source: string): Threshold | string {
  const m = PATTERN.exec(source);
  if (m === null) {
    return `cannot parse "${source}": expected "<stat> <op> <number>" with op one of < <= > >= ==, e.g. "p95 < 2000" or "wilson95.lo >= 0.95"`;
  }
  const [, rawStat = '', op = '', number = ''] = m;
  const stat = parseStatistic(rawStat);
  if (stat === null) {
    return `cannot parse "${source}": "${rawStat}" is not a statistic; use pNN (0 < NN < 100, e.g. p95 or p(95)), min, max, mean, wilsonNN.lo, wilsonNN.hi (NN = confidence % from 10 to 99), failures, successes, count or ratio`;
  }
  const bound = Number(number);
  if (!Number.isFinite(bound)) return `cannot parse "${source}": "${number}" is not a finite number`;
  return { source: source.trim(), stat, op: op as ThresholdOp, bound };
}

const QUANTILE = /^p(?:(\d+(?:\.\d+)?)|\((\d+(?:\.\d+)?)\))$/; // p95, or k6's spelling p(95)
const WILSON = /^wilson([1-9]\d)\.(lo|hi)$/; // two-digit confidence level: wilson90, wilson95, wilson99
const PLAIN = ['min', 'max', 'mean', 'failures', 'successes', 'count', 'ratio'] as const;

/** The statistic a name denotes (case-insensitive), or null when it names none; which metric allows which: metrics.ts. */
export function parseStatistic(name: string): Statistic | null {
  const lower = name.toLowerCase();
  const q = QUANTILE.exec(lower);
  if (q !== null) {
    const percent = Number(q[1] ?? q[2]);
    // to 15 digits: 99.9 / 100 is 0.9990000000000001 in binary, q is 0.999 as written
    return percent > 0 && percent < 100 ? { kind: 'quantile', q: Number((percent / 100).toPrecision(15)) } : null;
  }
  const w = WILSON.exec(lower);
  if (w !== null) return { kind: 'wilson', level: Number(w[1]), side: w[2] === 'lo' ? 'lo' : 'hi' };
  const plain = PLAIN.find((p) => p === lower);
  return plain === undefined ? null : { kind: plain };
}

/** A statistic's normal name, the inverse of parseStatistic: "p95", "wilson95.lo", "mean", "count". */
export function statName(stat: Statistic): string {
  switch (stat.kind) {
    case 'quantile':
      return `p${Number((stat.q * 100).toPrecision(12))}`;
    case 'wilson':
      return `wilson${stat.level}.${stat.side}`;
    default:
      return stat.kind;
  }
}

/** True when `value <op> bound` holds. */
export function holds(value: number, op: ThresholdOp, bound: number): boolean {
  switch (op) {
    case '<':
      return value < bound;
    case '<=':
      return value <= bound;
    case '>':
      return value > bound;
    case '>=':
      return value >= bound;
    case '==':
      return value === bound;
  }
}

/** Whether a growing count can only move further from passing once it violates `op` (so a violation is final). */
export function violationIsFinal(op: ThresholdOp): boolean {
  return op === '<' || op === '<=' || op === '==';
}

/** A threshold with the unit of its bar: "p95 < 1000 ms", "wilson95.lo >= 95%", "ratio >= 2x", "count == 0 violations". */
export function thresholdWithUnit(t: { stat: Statistic; op: ThresholdOp; bound: number; unit: string }): string {
  const bar =
    t.unit === '%'
      ? `${Number((t.bound * 100).toPrecision(12))}%`
      : t.unit === 'x'
        ? `${t.bound}x`
        : `${t.bound} ${t.unit}`;
  return `${statName(t.stat)} ${t.op} ${bar}`;
}
