// Threshold expressions `<stat> <op> <number>` (k6-like: "p95 < 2000", "wilson95.lo >= 0.95"): parse once, then compare.
import type { Threshold, ThresholdOp } from './types.js';

const PATTERN =
  /^\s*([a-z][a-z0-9]*(?:\([0-9.]+\))?(?:\.[a-z]+)?)\s*(<=|>=|==|<|>)\s*([-+]?(?:\d+\.?\d*|\.\d+)(?:e[-+]?\d+)?)\s*$/i;

/** Parse a threshold expression; returns a message (no file prefix) when it is malformed. */
export function parseThreshold(source: string): Threshold | string {
  const m = PATTERN.exec(source);
  if (m === null) {
    return `cannot parse "${source}": expected "<stat> <op> <number>" with op one of < <= > >= ==, e.g. "p95 < 2000" or "wilson95.lo >= 0.95"`;
  }
  const [, rawStat = '', op = '', number = ''] = m;
  const stat = rawStat.toLowerCase().replace(/^p\((\d+(?:\.\d+)?)\)$/, 'p$1'); // k6 spelling p(95) -> p95
  const bound = Number(number);
  if (!Number.isFinite(bound)) return `cannot parse "${source}": "${number}" is not a finite number`;
  return { source: source.trim(), stat, op: op as ThresholdOp, bound };
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
export function thresholdWithUnit(t: { threshold: string; op: ThresholdOp; bound: number; unit: string }): string {
  const at = t.threshold.indexOf(t.op);
  const stat = at > 0 ? t.threshold.slice(0, at).trim() : t.threshold;
  const bar =
    t.unit === '%'
      ? `${Number((t.bound * 100).toPrecision(12))}%`
      : t.unit === 'x'
        ? `${t.bound}x`
        : `${t.bound} ${t.unit}`;
  return `${stat} ${t.op} ${bar}`;
}
