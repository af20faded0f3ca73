// Vega-Lite specs for the reports index: one trend per scenario and target (downtime p95 and the kill-and-resume Wilson
// lower bound by night: the report's date, the nightly key), n on every point, each point coloured by the verdict its
// report stored. Every night from the first to the last has its place on the axis, so a night that did not run shows.
import type { TopLevelSpec } from 'vega-lite';
import { CHART_CONFIG, COLORS } from './chart-theme.js';
import { VL_SCHEMA } from './chart-spec.js';
import { visible } from '../../core/visible.js';

/** One report's point on its series' trend (nulls are left out of that panel). */
export interface TrendPoint {
  /** The report's night (yyyy-mm-dd: its date, the nightly seed key when it has one), the x position. */
  night: string;
  /** Run start time (ISO): orders two reports of one night, which stand side by side in that night's place. */
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

/** Most places on the x axis before the nights without a report are left out (a long gap would crowd the axis). */
const MAX_SLOTS = 120;
const DAY_MS = 86_400_000;

/**
 * The x axis: one place per night from the first to the last (a night without a report keeps an empty place), and a
 * place of its own for each further report of one night ("2025-06-01 (2)"). Returns each point's place and the axis's
 * places in order.
 */
export function nightSlots(points: readonly TrendPoint[]): { slots: string[]; slotOf: string[] } {
  const slotOf: string[] = [];
  const perNight = new Map<string, number>();
  for (const p of points) {
    const k = (perNight.get(p.night) ?? 0) + 1;
    perNight.set(p.night, k);
    slotOf.push(k === 1 ? p.night : `${p.night} (${k})`);
  }
  const nights = [...perNight.keys()].sort();
  const first = Date.parse(`${nights[0] ?? ''}T00:00:00Z`);
  const last = Date.parse(`${nights.at(-1) ?? ''}T00:00:00Z`);
  const span = Math.round((last - first) / DAY_MS) + 1;
  const every =
    Number.isFinite(span) && span + points.length - nights.length <= MAX_SLOTS
      ? Array.from({ length: span }, (_, i) => new Date(first + i * DAY_MS).toISOString().slice(0, 10))
      : [];
  const all = [...new Set([...every, ...nights])].sort();
  const slots = all.flatMap((n) =>
    Array.from({ length: perNight.get(n) ?? 1 }, (_, i) => (i === 0 ? n : `${n} (${i + 1})`)),
  );
  return { slots, slotOf };
}

/** "night 2025-06-01" or "nights 2025-06-01 to 2025-06-03": the nights a series covers (its axis shows month and day). */
function nightRange(points: readonly TrendPoint[]): string {
  const nights = points.map((p) => p.night).sort();
  const [first, last] = [nights[0] ?? '', nights.at(-1) ?? ''];
  return first === last ? `night ${first}` : `nights ${first} to ${last}`;
}

/** A panel of one measure by night: a line through the points, each point labelled with its n. */
function panel(
  points: readonly TrendPoint[],
  field: 'p95Ms' | 'wilsonLo',
  nField: 'downtimeN' | 'trials',
  title: string,
  axisTitle: string,
  format: string,
) {
  const { slots, slotOf } = nightSlots(points);
  const rows = points
    .map((p, i) => ({ ...p, slot: slotOf[i]!, order: i, n: p[nField] ?? 'n/a', label: `n=${p[nField] ?? '?'}` }))
    .filter((p) => p[field] !== null);
  const x = {
    field: 'slot',
    type: 'ordinal',
    title: 'Night (report date, UTC)',
    scale: { domain: slots, type: 'point', padding: 0.5 },
    axis: { labelAngle: -40, labelOverlap: 'parity', labelLimit: 200, labelExpr: 'slice(datum.label, 5)' },
  } as const;
  const y = {
    field,
    type: 'quantitative',
    title: axisTitle,
    scale: { zero: false },
    axis: { format, tickCount: 5 },
  } as const;
  const present = Object.keys(VERDICT_COLORS).filter((v) => points.some((p) => p.verdict === v));
  const verdicts = Object.keys(VERDICT_COLORS);
  return {
    width: 380,
    height: 180,
    data: { values: rows },
    title,
    layer: [
      {
        mark: { type: 'line' as const, color: COLORS.primary, strokeWidth: 1.5 },
        encoding: { x, y, order: { field: 'order', type: 'quantitative' as const } },
      },
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
            legend: { values: present, orient: 'bottom' as const, direction: 'horizontal' as const, labelLimit: 0 },
          },
          tooltip: [
            { field: 'report', title: 'report' },
            { field: 'night', title: 'night' },
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
      subtitle: `${series.points.length} report${series.points.length === 1 ? '' : 's'} by night, ${nightRange(series.points)}; n beside each point; colour: the verdict each report stored`,
    },
    hconcat: [
      panel(series.points, 'p95Ms', 'downtimeN', 'Downtime p95 (ms)', 'p95 (ms)', ',.0f'),
      panel(
        series.points,
        'wilsonLo',
        'trials',
        'Kill-and-resume, Wilson 95% lower bound',
        'Wilson lower bound',
        '.1%',
      ),
    ],
  };
}
