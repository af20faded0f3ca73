// Vega-Lite spec for success-rate gates: Wilson 95% interval per gate as a rule, the observed rate as a point, the bar as a tick.
import type { TopLevelSpec } from 'vega-lite';
import type { GateResult } from '../../gates/types.js';
import type { Summary } from '../../analysis/summary.js';
import { CHART_CONFIG, CHART_SIZE, COLORS } from './chart-theme.js';
import { VL_SCHEMA } from './chart-spec.js';
import { visible } from '../../core/visible.js';

/** One row of the Wilson chart. */
export interface RateRow {
  label: string;
  /** The observed rate (successes / trials), not the bound the gate is judged on. */
  value: number;
  lo: number;
  hi: number;
  bar: number | null;
  verdict: string;
}

/** A success-rate gate: a rate metric judged on a proportion (unit "%") with its Wilson interval. */
export function isRateGate(gate: Pick<GateResult, 'kind' | 'unit' | 'interval'>): boolean {
  return gate.kind === 'rate' && gate.unit === '%' && gate.interval !== null;
}

/** The bar a rate gate's Wilson bound must clear (as a proportion, on the chart's axis); null when the gate has no such bar. */
export function rateBar(gate: Pick<GateResult, 'stat' | 'bound'>): number | null {
  if (gate.stat.kind !== 'wilson') return null;
  return gate.bound >= 0 && gate.bound <= 1 ? gate.bound : null;
}

/** Rows for the chart: every rate gate; with none, the run's own kill-and-resume interval so the chart is never empty. */
export function rateRows(gates: readonly GateResult[], summary: Summary): RateRow[] {
  const rows: RateRow[] = gates.filter(isRateGate).map((g) => {
    const [lo, hi] = g.interval ?? [0, 0];
    return {
      label: visible(`${g.id}. ${g.title}`),
      value: g.observed ?? (lo + hi) / 2,
      lo,
      hi,
      bar: rateBar(g),
      verdict: g.verdict,
    };
  });
  const kr = summary.killResume;
  if (rows.length === 0 && kr.wilson95 !== null && kr.trials > 0) {
    rows.push({
      label: 'kill-and-resume (no gate)',
      value: kr.successes / kr.trials,
      lo: kr.wilson95[0],
      hi: kr.wilson95[1],
      bar: null,
      verdict: 'n/a',
    });
  }
  return rows;
}

/** Wilson 95% interval per success-rate gate. */
export function wilsonGatesSpec(gates: readonly GateResult[], summary: Summary): TopLevelSpec {
  const rows = rateRows(gates, summary);
  const bars = rows.filter((r) => r.bar !== null);
  const minLo = Math.min(0.8, ...rows.map((r) => r.lo), ...bars.map((r) => r.bar ?? 1));
  const domain: [number, number] = [Math.max(0, Math.floor(minLo * 20) / 20), 1];
  const y = { field: 'label', type: 'nominal', title: null, sort: null, axis: { labelLimit: 260 } } as const;
  return {
    $schema: VL_SCHEMA,
    config: CHART_CONFIG,
    width: CHART_SIZE.width * 2 - 220,
    height: { step: 34 },
    title: {
      text: 'Success rates (Wilson 95%)',
      subtitle:
        'point: observed rate; line: Wilson 95% interval; purple tick: the gate bar (judged on an interval end)',
    },
    data: { values: rows },
    layer: [
      {
        mark: { type: 'rule', color: COLORS.primary, strokeWidth: 3 },
        encoding: {
          y,
          x: {
            field: 'lo',
            type: 'quantitative',
            title: 'Success rate',
            scale: { domain, clamp: true },
            axis: { format: '.0%', tickCount: 6 },
          },
          x2: { field: 'hi' },
        },
      },
      {
        mark: { type: 'point', filled: true, size: 70, color: COLORS.primary },
        encoding: { y, x: { field: 'value', type: 'quantitative' } },
      },
      {
        transform: [{ filter: 'datum.bar != null' }],
        mark: { type: 'tick', color: COLORS.threshold, thickness: 2, size: 22 },
        encoding: { y, x: { field: 'bar', type: 'quantitative' } },
      },
    ],
  };
}
