// A gate's threshold drawn on the chart of its gate: a rule at the bar with a label naming the gate, the statistic and unit.
import type { TopLevelSpec } from 'vega-lite';
import type { GateResult } from '../../gates/types.js';
import { fmtGateThreshold } from '../text/gate-format.js';
import { visible } from '../../core/visible.js';
import { COLORS } from './chart-theme.js';

/** What a threshold rule shows: where the bar is (in the chart's x unit) and its label ("gate 4: p95 < 1000 ms"). */
export interface ThresholdRule {
  bar: number;
  label: string;
}

/** The rules of the gates on `metric` whose bar is in ms (distribution gates), in gate order. */
export function thresholdRules(gates: readonly GateResult[], metric: string): ThresholdRule[] {
  return gates
    .filter((g) => g.metric === metric && g.kind === 'distribution' && g.unit === 'ms' && Number.isFinite(g.bound))
    .map((g) => ({ bar: g.bound, label: visible(`gate ${g.id}: ${fmtGateThreshold(g)}`) }));
}

/** `spec` (a single or layered chart whose x axis is in the rules' unit) with each rule drawn as a solid line and labelled. */
export function withThresholdRules(spec: TopLevelSpec, rules: readonly ThresholdRule[]): TopLevelSpec {
  if (rules.length === 0) return spec;
  const { mark, encoding, layer, ...rest } = spec as unknown as Record<string, unknown>;
  const base = Array.isArray(layer) ? (layer as unknown[]) : [{ mark, encoding }];
  const data = { values: rules.map((r) => ({ ...r })) };
  const x = { field: 'bar', type: 'quantitative' } as const;
  return {
    ...rest,
    layer: [
      ...base,
      { data, mark: { type: 'rule', color: COLORS.threshold, strokeWidth: 2 }, encoding: { x } },
      {
        data,
        mark: { type: 'text', color: COLORS.threshold, align: 'right', baseline: 'top', dx: -4, dy: 4, fontSize: 10 },
        encoding: { x, y: { value: 0 }, text: { field: 'label' } },
      },
    ],
  } as TopLevelSpec;
}
