// Write one dated report (index.html, summary.md, summary.json, cycles.csv, charts) and regenerate the reports index.
import path from 'node:path';
import { DiskError, diskErrno, InputError } from '../core/errors.js';
import { escapedJson } from '../core/visible.js';
import type { GateResult } from '../gates/types.js';
import type { TimingJudgement } from '../gates/judge.js';
import type { RunAnalysis } from '../analysis/summary.js';
import type { DurabilityRow } from '../analysis/durability.js';
import { writeFileAtomic } from '../core/durable.js';
import { reportChartSpecs, renderCharts } from './charts/charts.js';
import { cyclesCsv } from './text/csv.js';
import { renderIndexPage } from './html/index-page.js';
import { buildModel } from './model.js';
import { renderPage } from './html/page.js';
import { durabilityStatements, plainKillRows } from './text/durability.js';
import { publishReport } from './publish.js';
import { listReports } from './report-list.js';
import { slug } from '../core/slug.js';
import { renderWalkthrough } from './text/walkthrough.js';
import type { Baseline } from './baseline/read-baseline.js';
import { sinceLastJson } from './baseline/since-last.js';

/** What writeReport needs: the analysed run, its judged gates, and the reports folder (created if missing). */
export interface WriteReportInput {
  analysis: RunAnalysis;
  gates: GateResult[];
  reportsDir: string;
  /** The previous report to compare with (read by readBaseline); none: no since-last-report section. */
  baseline?: Baseline;
  /** Measured durability per fault kind (analysis/durability.ts); absent or empty: no fault but SIGKILL. */
  durability?: DurabilityRow[];
  /** The judgement's timing (judge.ts: strict or not); absent: the gates' own, timing not strict. */
  timing?: TimingJudgement;
}

/** Where the report went: its folder and the absolute paths of every file in it (sorted). */
export interface WrittenReport {
  dir: string;
  files: string[];
}

/**
 * Write reportsDir/<date>-<slug(scenario)>[-k]/ atomically (never overwriting an existing report), then regenerate
 * reportsDir/index.html from every report's summary.json. Throws InputError when summary.date is not yyyy-mm-dd.
 */
export async function writeReport(input: WriteReportInput): Promise<WrittenReport> {
  const { analysis, gates, reportsDir } = input;
  const durability = input.durability ?? [];
  const rows = durability.length > 0 ? durability : plainKillRows(analysis.summary.cycles);
  const date = analysis.summary.date;
  if (!/^\d{4}-\d{2}-\d{2}$/.test(date))
    throw new InputError(
      `summary.date: expected yyyy-mm-dd, got ${JSON.stringify(date)}; re-run the analysis on the journal`,
    );
  const model = buildModel(analysis, gates, input.baseline, input.timing);
  const charts = await renderCharts(reportChartSpecs({ ...analysis, summary: model.summary }, model.gates));
  const files = new Map<string, string>([
    // The page's durability section states what was tested and what was not, each with its n, as summary.md does.
    ['index.html', renderPage({ ...model, durability: [...model.durability, ...durabilityStatements(rows)] }, charts)],
    ['summary.md', renderWalkthrough(model, charts, rows)],
    [
      'summary.json',
      `${escapedJson({ ...model.summary, verdict: model.verdict, gates: model.gates, timing: model.timing, ...sinceLastJson(model.sinceLast), ...(durability.length > 0 ? { durability } : {}) }, 2)}\n`,
    ],
    ['cycles.csv', cyclesCsv(analysis.cycles)],
  ]);
  for (const chart of charts) {
    files.set(`charts/${chart.name}.svg`, `${chart.svg}\n`);
    files.set(`charts/${chart.name}.vl.json`, `${escapedJson(chart.spec, 2)}\n`);
  }
  let dir: string;
  try {
    // Each file is staged in a temp folder and renamed into place: a full disk leaves no half-written report.
    dir = await publishReport(path.resolve(reportsDir), `${date}-${slug(analysis.summary.scenario)}`, files);
    await writeReportsIndex(path.resolve(reportsDir));
  } catch (err) {
    const errno = diskErrno(err);
    throw errno ? new DiskError(path.resolve(reportsDir), errno, { cause: err }) : err;
  }
  return { dir, files: [...files.keys()].map((rel) => path.join(dir, rel)).sort() };
}

/** Regenerate reportsDir/index.html from the reports in it (atomic replace). */
export async function writeReportsIndex(reportsDir: string): Promise<string> {
  const file = path.join(reportsDir, 'index.html');
  writeFileAtomic(file, await renderIndexPage(await listReports(reportsDir)));
  return file;
}
