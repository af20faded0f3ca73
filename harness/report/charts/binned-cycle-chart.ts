// Vega-Lite spec for downtime per cycle on a large run: binned consecutive cycles (median line, p5-p95 band, max line and dots, failures crossed).
import type { TopLevelSpec } from 'vega-lite';
import { CHART_CONFIG, CHART_SIZE, COLORS, PHASE_DOMAIN } from './chart-theme.js';
import { VL_SCHEMA } from './chart-spec.js';
import type { CycleBinning } from './cycle-bins.js';
import { fmtNum } from '../text/format.js';

/** What each mark of the binned chart is. */
export const BINNED_MARKS = 'line = median, band = p5–p95, grey line and dots = max of each bin';

/** "binned: 200 consecutive cycles per point". */
function binnedClause(binning: CycleBinning): string {
  return `binned: ${fmtNum(binning.perBin)} consecutive cycles per point`;
}

/** The page caption of the binned chart. */
export function binnedCaption(binning: CycleBinning): string {
  return (
    `Cycles in order, ${binnedClause(binning)}; ${BINNED_MARKS} (dots coloured by the phase that cycle's kill landed in); ` +
    'red crosses mark failed cycles, at the top when they never resumed. Every cycle is in cycles.csv.'
  );
}

/** Downtime per cycle for `total` cycles in `binning.bins`: a spike stays visible on the max line and dots, a failure as a red cross. */
export function binnedDowntimeSpec(total: number, binning: CycleBinning): TopLevelSpec {
  const { bins } = binning;
  const failed = bins.reduce((sum, b) => sum + b.failed, 0);
  const failedBins = bins.filter((b) => b.failed > 0).length;
  const x = {
    field: 'cycleMid',
    type: 'quantitative',
    title: `Cycle (${fmtNum(binning.perBin)} per bin)`,
    scale: { zero: false },
  } as const;
  const y = { type: 'quantitative', title: 'Downtime (ms)' } as const;
  const cross = { type: 'point', shape: 'cross', color: COLORS.bad, filled: true, size: 70, opacity: 1 } as const;
  return {
    $schema: VL_SCHEMA,
    config: CHART_CONFIG,
    width: CHART_SIZE.width * 2 + 40,
    height: CHART_SIZE.height,
    title: {
      text: 'Downtime per cycle (binned)',
      subtitle: [
        `${fmtNum(total)} cycles, ${binnedClause(binning)} (${fmtNum(bins.length)} bins); ${fmtNum(failed)} failed (✕) in ${fmtNum(failedBins)} bins`,
        `${BINNED_MARKS} (dots coloured by where that cycle's kill landed)`,
      ],
    },
    data: { values: bins },
    layer: [
      {
        mark: { type: 'area', color: COLORS.primary, opacity: 0.2, aria: false },
        encoding: { x, y: { ...y, field: 'p5Ms' }, y2: { field: 'p95Ms' } },
      },
      {
        mark: { type: 'line', color: COLORS.primary, strokeWidth: 1.5, aria: false },
        encoding: { x, y: { ...y, field: 'medianMs' } },
      },
      {
        mark: { type: 'line', color: COLORS.muted, strokeWidth: 0.75, opacity: 0.8, aria: false },
        encoding: { x: { field: 'maxCycle', type: 'quantitative' }, y: { ...y, field: 'maxMs' } },
      },
      {
        transform: [{ filter: 'datum.maxMs != null' }],
        mark: { type: 'point', filled: true, opacity: 0.85, size: 16, aria: false },
        encoding: {
          x: { field: 'maxCycle', type: 'quantitative' },
          y: { ...y, field: 'maxMs' },
          color: {
            field: 'maxPhase',
            type: 'nominal',
            title: 'Max dots: kill landed during',
            legend: { titleLimit: 300 },
            scale: { domain: [...PHASE_DOMAIN], range: [...COLORS.phases] },
          },
        },
      },
      {
        transform: [{ filter: 'datum.failedResumed > 0' }],
        mark: cross,
        encoding: {
          x: { field: 'failedMaxCycle', type: 'quantitative' },
          y: { field: 'failedMaxMs', type: 'quantitative' },
        },
      },
      {
        transform: [{ filter: 'datum.failedNeverResumed > 0' }],
        mark: cross,
        encoding: { x: { field: 'firstNeverResumedCycle', type: 'quantitative' }, y: { value: 4 } },
      },
    ],
  };
}
