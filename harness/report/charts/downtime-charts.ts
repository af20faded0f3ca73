// Vega-Lite specs for downtime: histogram, ECDF with p50/p95/p99 rules, and downtime per cycle coloured by kill phase.
import type { TopLevelSpec } from 'vega-lite';
import type { KillPhase, Outcome } from '../../journal/events.js';
import type { CycleTable, Distribution } from '../../analysis/summary.js';
import { CHART_CONFIG, CHART_SIZE, COLORS, PHASE_DOMAIN } from './chart-theme.js';
import { VL_SCHEMA } from './chart-spec.js';
import { ecdfData, histogramData } from './chart-data.js';
import { fmtMs } from '../text/format.js';

const DOWNTIME_TITLE = 'Downtime (ms)';

/** Histogram of downtime samples (ms) on nice bins. */
export function downtimeHistogramSpec(downtimes: readonly number[]): TopLevelSpec {
  const bins = histogramData(downtimes);
  return {
    $schema: VL_SCHEMA,
    config: CHART_CONFIG,
    ...CHART_SIZE,
    title: { text: 'Downtime histogram', subtitle: `kill → first verified heartbeat, n = ${downtimes.length}` },
    data: { values: bins },
    mark: { type: 'bar', color: COLORS.primary, binSpacing: 1 },
    encoding: {
      x: { field: 'x0', type: 'quantitative', bin: { binned: true }, title: DOWNTIME_TITLE },
      x2: { field: 'x1' },
      y: { field: 'count', type: 'quantitative', title: 'Cycles', axis: { tickMinStep: 1 } },
    },
  };
}

/** ECDF of downtime with vertical rules at p50, p95 and p99 (values from the summary). */
export function downtimeEcdfSpec(downtimes: readonly number[], dist: Distribution): TopLevelSpec {
  const points = ecdfData(downtimes);
  const marks = (['p50', 'p95', 'p99'] as const).flatMap((label, i) => {
    const value = dist[label];
    return value === null ? [] : [{ label, value, text: `${label} ${fmtMs(value)}`, at: 0.1 + 0.12 * i }];
  });
  return {
    $schema: VL_SCHEMA,
    config: CHART_CONFIG,
    ...CHART_SIZE,
    title: { text: 'Downtime ECDF', subtitle: `share of cycles resumed within x ms, n = ${downtimes.length}` },
    layer: [
      {
        data: { values: points },
        mark: { type: 'line', interpolate: 'step-after', color: COLORS.primary, strokeWidth: 2 },
        encoding: {
          x: { field: 'x', type: 'quantitative', title: DOWNTIME_TITLE, scale: { zero: false } },
          y: {
            field: 'p',
            type: 'quantitative',
            title: 'Cycles resumed (cumulative)',
            axis: { format: '.0%' },
            scale: { domain: [0, 1] },
          },
        },
      },
      {
        data: { values: marks },
        mark: { type: 'rule', color: COLORS.threshold, strokeDash: [4, 3] },
        encoding: { x: { field: 'value', type: 'quantitative' } },
      },
      {
        data: { values: marks },
        mark: { type: 'text', color: COLORS.threshold, align: 'left', dx: 4, fontSize: 10 },
        encoding: {
          x: { field: 'value', type: 'quantitative' },
          y: { field: 'at', type: 'quantitative' },
          text: { field: 'text', type: 'nominal' },
        },
      },
    ],
  };
}

/** Downtime per cycle over cycle number, coloured by observed kill phase; failed cycles drawn as red crosses (at the top when they never resumed). */
export function downtimePerCycleSpec(cycles: CycleTable): TopLevelSpec {
  const resumed: { cycle: number; downtimeMs: number; phase: KillPhase; outcome: Outcome }[] = [];
  const neverResumed: { cycle: number; outcome: Outcome }[] = [];
  for (let i = 0; i < cycles.length; i++) {
    const cycle = cycles.cycle[i]!;
    const downtimeMs = cycles.downtimeMs[i]!;
    const outcome = cycles.outcome[i]!;
    if (Number.isNaN(downtimeMs)) neverResumed.push({ cycle, outcome });
    else resumed.push({ cycle, downtimeMs, phase: cycles.observedPhase[i]!, outcome });
  }
  const failed = resumed.filter((c) => c.outcome !== 'ok');
  const size = cycles.length > 2000 ? 6 : cycles.length > 300 ? 14 : 30;
  const nFailed = failed.length + neverResumed.length;
  return {
    $schema: VL_SCHEMA,
    config: CHART_CONFIG,
    width: CHART_SIZE.width * 2 + 40,
    height: CHART_SIZE.height,
    title: {
      text: 'Downtime per cycle',
      subtitle: `${cycles.length} cycles, coloured by where the kill landed; ${nFailed} failed (✕)`,
    },
    layer: [
      {
        data: { values: resumed },
        mark: { type: 'point', filled: true, opacity: 0.75, size, aria: false },
        encoding: {
          x: { field: 'cycle', type: 'quantitative', title: 'Cycle', scale: { zero: false } },
          y: { field: 'downtimeMs', type: 'quantitative', title: DOWNTIME_TITLE },
          color: {
            field: 'phase',
            type: 'nominal',
            title: 'Kill landed during',
            scale: { domain: [...PHASE_DOMAIN], range: [...COLORS.phases] },
          },
        },
      },
      {
        data: { values: failed },
        mark: { type: 'point', shape: 'cross', color: COLORS.bad, filled: true, size: 70, opacity: 1 },
        encoding: { x: { field: 'cycle', type: 'quantitative' }, y: { field: 'downtimeMs', type: 'quantitative' } },
      },
      {
        data: { values: neverResumed },
        mark: { type: 'point', shape: 'cross', color: COLORS.bad, filled: true, size: 70, opacity: 1 },
        encoding: { x: { field: 'cycle', type: 'quantitative' }, y: { value: 4 } },
      },
    ],
  };
}
