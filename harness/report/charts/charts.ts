// The set of charts in one report: which specs, in what order, with titles and captions; and rendering them all to SVG.
import type { GateResult } from '../../gates/types.js';
import type { CycleTable, RunAnalysis } from '../../analysis/summary.js';
import { binnedCaption, binnedDowntimeSpec } from './binned-cycle-chart.js';
import type { ChartSpec, RenderedChart } from './chart-spec.js';
import { binCycles, MAX_UNBINNED_CYCLES } from './cycle-bins.js';
import { downtimeEcdfSpec, downtimeHistogramSpec, downtimePerCycleSpec } from './downtime-charts.js';
import { wilsonGatesSpec } from './gate-chart.js';
import { renderSvg } from './render.js';
import { checkpointPauseSpec, storeGrowthSpec } from './store-charts.js';
import { thresholdRules, withThresholdRules } from './threshold-rule.js';

/** Downtime per cycle: every cycle up to MAX_UNBINNED_CYCLES, above that consecutive cycles binned (same chart name and place). */
function downtimePerCycleChart(cycles: CycleTable): ChartSpec {
  const name = 'downtime-per-cycle';
  if (cycles.length <= MAX_UNBINNED_CYCLES) {
    const caption =
      'Each cycle in order, coloured by the phase the kill actually landed in; red crosses are failed cycles.';
    return { name, title: 'Downtime per cycle', caption, spec: downtimePerCycleSpec(cycles) };
  }
  const binning = binCycles(cycles);
  return {
    name,
    title: 'Downtime per cycle (binned)',
    caption: binnedCaption(binning),
    spec: binnedDowntimeSpec(cycles.length, binning),
  };
}

/** The report's chart specs, in page order. */
export function reportChartSpecs(analysis: RunAnalysis, gates: readonly GateResult[]): ChartSpec[] {
  const { summary, cycles, checkpoints, downtimes } = analysis;
  return [
    {
      name: 'downtime-histogram',
      title: 'Downtime histogram',
      caption:
        "How long each session was down, from SIGKILL to the first verified heartbeat after resume; the solid purple line is the downtime gate's bar.",
      spec: withThresholdRules(downtimeHistogramSpec(downtimes), thresholdRules(gates, 'downtimeMs')),
    },
    {
      name: 'downtime-ecdf',
      title: 'Downtime ECDF',
      caption:
        "Share of resumed cycles whose downtime was at most x; dashed rules mark p50, p95 and p99, the solid one the gate's bar.",
      spec: withThresholdRules(downtimeEcdfSpec(downtimes, summary.downtimeMs), thresholdRules(gates, 'downtimeMs')),
    },
    downtimePerCycleChart(cycles),
    {
      name: 'success-rates',
      title: 'Success rates',
      caption: 'Each success-rate gate judged on its Wilson 95% interval: the lower end must clear the bar.',
      spec: wilsonGatesSpec(gates, summary),
    },
    {
      name: 'checkpoint-pause',
      title: 'Checkpoint pause',
      caption:
        "How long the session was paused to take each checkpoint; the solid purple line is the pause gate's bar.",
      spec: withThresholdRules(checkpointPauseSpec(checkpoints), thresholdRules(gates, 'checkpointPauseMs')),
    },
    {
      name: 'store-growth',
      title: 'Store growth',
      caption: 'Cumulative bytes checkpointed (logical) against bytes actually stored after content-addressed dedup.',
      spec: storeGrowthSpec(checkpoints),
    },
  ];
}

/** Render every spec to SVG (in order; each SVG's ids are scoped by its chart name). */
export async function renderCharts(specs: readonly ChartSpec[]): Promise<RenderedChart[]> {
  const out: RenderedChart[] = [];
  for (const chart of specs) out.push({ ...chart, svg: await renderSvg(chart.spec, `chart-${chart.name}`) });
  return out;
}
