// Shared Vega-Lite look for every report chart: fonts, colours, sizes; one place to restyle all SVGs.
import type { Config } from 'vega-lite';

/** Font stack used by the page and the charts (SVG text is measured with an estimate, so keep it plain). */
export const CHART_FONT = 'Helvetica, Arial, sans-serif';

/** Colours by role: primary series, secondary series, bad/failed, threshold, muted guides. */
export const COLORS = {
  primary: '#2f6db5',
  secondary: '#e08a2e',
  bad: '#c62828',
  threshold: '#8e2ca8',
  muted: '#6b7280',
  phases: ['#2f6db5', '#e08a2e', '#2e9e6a'],
} as const;

/** Kill phases in legend order, with their colours. */
export const PHASE_DOMAIN = ['work', 'checkpoint', 'restore'] as const;

/** Default chart width and height in px (two charts side by side on a wide page). */
export const CHART_SIZE = { width: 420, height: 220 } as const;

/** The Vega-Lite config every chart spec carries. */
export const CHART_CONFIG: Config = {
  font: CHART_FONT,
  background: '#ffffff',
  padding: 8,
  view: { stroke: null },
  title: {
    fontSize: 14,
    fontWeight: 600,
    anchor: 'start',
    color: '#111827',
    subtitleColor: COLORS.muted,
    subtitleFontSize: 11,
    offset: 10,
  },
  axis: {
    labelFontSize: 11,
    titleFontSize: 11,
    titleFontWeight: 500,
    titleColor: '#374151',
    labelColor: '#4b5563',
    gridColor: '#eef0f3',
    domainColor: '#9ca3af',
    tickColor: '#9ca3af',
  },
  legend: { labelFontSize: 11, titleFontSize: 11, titleFontWeight: 500, orient: 'top', direction: 'horizontal' },
};
