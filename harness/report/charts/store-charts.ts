// Vega-Lite specs for checkpoints: pause-time distribution and store growth (cumulative logical vs stored bytes per seq).
import type { TopLevelSpec } from 'vega-lite';
import { ascendingOrder, runningTotals } from '../../analysis/columns.js';
import type { CheckpointTable } from '../../analysis/summary.js';
import { CHART_CONFIG, CHART_SIZE, COLORS } from './chart-theme.js';
import { VL_SCHEMA } from './chart-spec.js';
import { histogramData } from './chart-data.js';
import { fmtNum } from '../text/format.js';

const MIB = 2 ** 20;
const MAX_GROWTH_POINTS = 800;

/** Histogram of checkpoint pause times (ms): how long the session was stopped for each checkpoint. */
export function checkpointPauseSpec(checkpoints: CheckpointTable): TopLevelSpec {
  const bins = histogramData(checkpoints.pauseMs);
  return {
    $schema: VL_SCHEMA,
    config: CHART_CONFIG,
    ...CHART_SIZE,
    title: { text: 'Checkpoint pause', subtitle: `session paused per checkpoint, n = ${checkpoints.length}` },
    data: { values: bins },
    mark: { type: 'bar', color: COLORS.secondary, binSpacing: 1 },
    encoding: {
      x: { field: 'x0', type: 'quantitative', bin: { binned: true }, title: 'Pause (ms)' },
      x2: { field: 'x1' },
      y: { field: 'count', type: 'quantitative', title: 'Checkpoints', axis: { tickMinStep: 1 } },
    },
  };
}

/** Keep at most `max` rows, evenly spaced, always including the first and the last. */
export function thin<T>(rows: ArrayLike<T>, max: number): T[] {
  if (rows.length <= max) return Array.from(rows);
  const out: T[] = [];
  const stride = (rows.length - 1) / (max - 1);
  for (let k = 0; k < max; k++) out.push(rows[Math.round(k * stride)] as T);
  return out;
}

/** Cumulative logical vs stored MiB over checkpoint sequence number on a log axis; the gap between the lines is the dedup factor. */
export function storeGrowthSpec(checkpoints: CheckpointTable): TopLevelSpec {
  // Totals accumulate in journal order; the chart then follows sequence numbers.
  const logical = runningTotals(checkpoints.logicalBytes);
  const stored = runningTotals(checkpoints.storedBytes);
  const drawn = thin(ascendingOrder(checkpoints.seq), MAX_GROWTH_POINTS);
  const rows = drawn.flatMap((i) => [
    { seq: checkpoints.seq[i]!, series: 'logical (before dedup)', mib: logical[i]! / MIB },
    { seq: checkpoints.seq[i]!, series: 'stored (after dedup)', mib: stored[i]! / MIB },
  ]);
  // Totals are exact at every drawn checkpoint, so a jump between two drawn ones still shows, spread over that interval.
  const thinnedNote = drawn.length < checkpoints.length ? `; ${fmtNum(drawn.length)} of them drawn, evenly spaced` : '';
  return {
    $schema: VL_SCHEMA,
    config: CHART_CONFIG,
    ...CHART_SIZE,
    title: {
      text: 'Store growth',
      subtitle: `cumulative bytes over ${fmtNum(checkpoints.length)} journaled checkpoints${thinnedNote}; log scale`,
    },
    data: { values: rows },
    mark: { type: 'line', strokeWidth: 2, interpolate: 'linear' },
    encoding: {
      x: { field: 'seq', type: 'quantitative', title: 'Checkpoint sequence number' },
      // log axis: stored bytes are often far below logical, flat against it on a linear axis
      y: { field: 'mib', type: 'quantitative', title: 'Cumulative size (MiB, log scale)', scale: { type: 'log' } },
      color: {
        field: 'series',
        type: 'nominal',
        title: null,
        legend: { labelLimit: 300 },
        scale: {
          domain: ['logical (before dedup)', 'stored (after dedup)'],
          range: [COLORS.secondary, COLORS.primary],
        },
      },
    },
  };
}
