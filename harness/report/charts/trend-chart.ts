// Vega-Lite specs for the reports index: one trend per scenario and target (downtime p95 and the kill-and-resume Wilson
// lower bound by run start time), n on every point, each point coloured by the verdict its report stored.
import type { TopLevelSpec } from 'vega-lite';
import { CHART_CONFIG, COLORS } from './chart-theme.js';
import { VL_SCHEMA } from './chart-spec.js';
import { visible } from '../../core/visible.js';

/** One report's point on its series' trend (nulls are left out of that panel). */
export interface TrendPoint {
  /** Run start time (ISO), the x position: two reports of one day stand apart instead of on one vertical. */
  startedAt: string;
  report: string;
  p95Ms: number | null;
  /** Downtime samples behind p95Ms. */
  downtimeN: number | null;
  wilsonLo: number | null;
  /** Kill-and-resume trials behind wilsonLo. */
  trials: number | null;
  /** The verdict word the report stored (never re-derived here). */
  verdict: string;
}

/** One series: the reports of one scenario on one target, oldest first. */
export interface TrendSeries {
  scenario: string;
  target: string;
  negativeControl: boolean;
  points: TrendPoint[];
}

const VERDICT_COLORS: Record<string, string> = {
  pass: '#2e9e6a',
  fail: COLORS.bad,
  'inconclusive at 95%': COLORS.secondary,
  'adapter fault': COLORS.bad,
  'insufficient data': COLORS.muted,
  'no gates': COLORS.muted,
  unreadable: COLORS.muted,
};

/** A panel of one measure over run start time: a line through the points, each point labelled with its n. */
function panel(
  points: readonly TrendPoint[],
  field: 'p95Ms' | 'wilsonLo',
  nField: 'downtimeN' | 'trials',
  title: string,
  axis: { format?: string },
) {
  const rows = points
    .filter((p) => p[field] !== null)
    .map((p) => ({ ...p, t: Date.parse(p.startedAt), n: p[nField] ?? 'n/a', label: `n=${p[nField] ?? '?'}` }));
  const x = {
    field: 't',
    type: 'temporal',
    title: 'Run start (UTC)',
    scale: { type: 'utc' },
    axis: { labelAngle: -30, format: '%m-%d %H:%M', tickCount: 6 },
  } as const;
  const y = { field, type: 'quantitative', title, scale: { zero: false }, axis } as const;
  const verdicts = Object.keys(VERDICT_COLORS);
  return {
    width: 360,
    height: 180,
    data: { values: rows },
    title,
    layer: [
      { mark: { type: 'line' as const, color: COLORS.primary, strokeWidth: 1.5 }, encoding: { x, y } },
      {
        mark: { type: 'point' as const, filled: true, size: 60 },
        encoding: {
          x,
          y,
          color: {
            field: 'verdict',
            type: 'nominal' as const,
            title: 'Stored verdict',
            scale: { domain: verdicts, range: verdicts.map((v) => VERDICT_COLORS[v]!) },
          },
          tooltip: [
            { field: 'report', title: 'report' },
            { field, title },
            { field: 'n', title: 'n' },
            { field: 'verdict', title: 'verdict' },
          ],
        },
      },
      {
        mark: { type: 'text' as const, dy: -10, fontSize: 10, color: COLORS.muted },
        encoding: { x, y, text: { field: 'label' } },
      },
    ],
  };
}

/** The series' two panels side by side, each with its own y axis (another series' values never stretch it). */
export function trendSeriesSpec(series: TrendSeries): TopLevelSpec {
  const name = visible(`${series.scenario} on ${series.target}`);
  return {
    $schema: VL_SCHEMA,
    config: CHART_CONFIG,
    title: {
      text: `${series.negativeControl ? 'Negative control: ' : ''}${name}`,
      subtitle: `${series.points.length} report${series.points.length === 1 ? '' : 's'}; n beside each point; colour: the verdict each report stored`,
    },
    hconcat: [
      panel(series.points, 'p95Ms', 'downtimeN', 'Downtime p95 (ms)', {}),
      panel(series.points, 'wilsonLo', 'trials', 'Kill-and-resume, Wilson 95% lower bound', { format: '.1%' }),
    ],
  };
}
