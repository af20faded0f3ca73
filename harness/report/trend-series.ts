// Group the dated reports into trend series: one per scenario and target, negative controls apart, oldest first.
import { VERDICT_WORD } from '../gates/verdict.js';
import type { TrendSeries } from './charts/trend-chart.js';
import type { ReportEntry } from './report-list.js';

/** The verdict word a report stored, as the index prints it. */
export function storedVerdictWord(verdict: ReportEntry['verdict']): string {
  if (verdict === 'unreadable') return 'unreadable';
  return verdict === 'none' ? 'no gates' : VERDICT_WORD[verdict];
}

/** One series per (scenario, target) over the readable reports, sorted by name; points by night, then run start time. */
export function trendSeries(entries: readonly ReportEntry[]): TrendSeries[] {
  const byKey = new Map<string, TrendSeries>();
  for (const e of entries) {
    if (e.verdict === 'unreadable') continue;
    const key = `${e.scenario}\u0000${e.target}`;
    const series = byKey.get(key) ?? { scenario: e.scenario, target: e.target, negativeControl: false, points: [] };
    series.negativeControl ||= e.negativeControl;
    series.points.push({
      night: e.date,
      startedAt: e.startedAt !== '' ? e.startedAt : `${e.date}T00:00:00.000Z`,
      report: e.dir,
      p95Ms: e.p95Ms,
      downtimeN: e.downtimeN,
      wilsonLo: e.wilsonLo,
      trials: e.trials,
      verdict: storedVerdictWord(e.verdict),
    });
    byKey.set(key, series);
  }
  const all = [...byKey.values()];
  const key = (p: TrendSeries['points'][number]): string => `${p.night}\u0000${p.startedAt}\u0000${p.report}`;
  for (const s of all) s.points.sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
  return all.sort((a, b) => (`${a.scenario} ${a.target}` < `${b.scenario} ${b.target}` ? -1 : 1));
}
