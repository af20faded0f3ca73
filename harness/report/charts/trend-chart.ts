// Vega-Lite spec for the reports index: downtime p95 and kill-and-resume Wilson lower bound across report dates.
import type { TopLevelSpec } from 'vega-lite';
import { CHART_CONFIG, COLORS } from './chart-theme.js';
import { VL_SCHEMA } from './chart-spec.js';

/** One report's point on the trend (nulls are left out of that panel). */
export interface TrendPoint {
  date: string;
  report: string;
  p95Ms: number | null;
  wilsonLo: number | null;
}

/** Tick positions (UTC ms): the distinct report dates, thinned to at most 8, so no label repeats a day. */
export function dateTicks(points: readonly TrendPoint[]): number[] {
  const days = [...new Set(points.map((p) => Date.parse(`${p.date}T00:00:00Z`)).filter(Number.isFinite))].sort(
    (a, b) => a - b,
  );
  const stride = Math.ceil(days.length / 8);
  return days.filter((_d, i) => i % stride === 0 || i === days.length - 1);
}

/** Two panels side by side, sharing the date axis (UTC): p95 downtime in ms, and the Wilson 95% lower bound. */
export function trendSpec(points: readonly TrendPoint[]): TopLevelSpec {
  const x = {
    field: 'date',
    type: 'temporal',
    title: 'Report date (UTC)',
    scale: { type: 'utc' },
    axis: { format: '%Y-%m-%d', labelAngle: -30, values: dateTicks(points) },
  } as const;
  const panel = { width: 380, height: 200 } as const;
  return {
    $schema: VL_SCHEMA,
    config: CHART_CONFIG,
    title: { text: 'Trend across reports', subtitle: `${points.length} reports` },
    hconcat: [
      {
        ...panel,
        data: { values: points.filter((p) => p.p95Ms !== null) },
        title: 'Downtime p95 (ms)',
        mark: { type: 'line', point: { filled: true, size: 45, color: COLORS.primary }, color: COLORS.primary },
        encoding: { x, y: { field: 'p95Ms', type: 'quantitative', title: 'p95 downtime (ms)' } },
      },
      {
        ...panel,
        data: { values: points.filter((p) => p.wilsonLo !== null) },
        title: 'Kill-and-resume, Wilson 95% lower bound',
        mark: { type: 'line', point: { filled: true, size: 45, color: COLORS.secondary }, color: COLORS.secondary },
        encoding: {
          x,
          y: {
            field: 'wilsonLo',
            type: 'quantitative',
            title: 'Lower bound',
            axis: { format: '.1%' },
            scale: { zero: false },
          },
        },
      },
    ],
  };
}
