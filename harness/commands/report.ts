// `soak report <run-dir...>`: write the dated report (index.html, summary.md, summary.json, cycles.csv, charts).
import { existsSync } from 'node:fs';
import { checkLedgerOfRun } from '../run/effects-run.js';
import path from 'node:path';
import type { Argv } from 'yargs';
import { writeReport } from '../report/write.js';
import { loadRuns, noteTornTails } from '../analysis/load-runs.js';
import { durabilityRows, faultEvents } from '../analysis/durability.js';
import { defineCommand } from './command.js';
import { VERBS } from './verbs.js';
import { ciOutputOptions, writeCiOutputs } from './ci-outputs.js';
import { OUTPUT_SCHEMA_VERSION } from '../report/output-schemas.js';
import type { RunAnalysis } from '../analysis/summary.js';
import { judge, verdictLine, type Judgement } from '../gates/judge.js';
import { strictTiming, strictTimingOption } from './strict-timing.js';
import { wrapText, tableWidth } from '../report/text/gate-table.js';
import { exitCodeFor } from '../gates/verdict.js';
import { escapedJson, visible } from '../core/visible.js';
import { readBaseline, type Baseline } from '../report/baseline/read-baseline.js';
import { autoBaseline } from '../report/baseline/resolve-baseline.js';

interface ReportArgs {
  runDirs: string[];
  out: string;
  json: boolean;
  baseline?: string;
  junit?: string;
  summaryMd?: string;
  strictTiming?: boolean;
}

/** Write the report for an analysed run, judged as `judged` (its gates and timing), into `reportsDir`. */
export function writeReportFor(
  analysis: RunAnalysis,
  judged: Pick<Judgement, 'gates' | 'timing'>,
  reportsDir: string,
  baseline?: Baseline,
  /** The run folders analysed (their fault events give the durability table). */
  runDirs: readonly string[] = [],
): Promise<{ dir: string; files: string[] }> {
  const durability = durabilityRows(runDirs.map(faultEvents));
  return writeReport({
    analysis,
    gates: judged.gates,
    timing: judged.timing,
    reportsDir: path.resolve(reportsDir),
    durability,
    ...(baseline ? { baseline } : {}),
  });
}

/** The baseline `--baseline` names: a report folder, or `auto` (the newest earlier report of this scenario and target). */
async function baselineFor(
  flag: string | undefined,
  analysis: RunAnalysis,
  reportsDir: string,
): Promise<Baseline | null> {
  if (flag === undefined) return null;
  const dir = flag === 'auto' ? await autoBaseline(path.resolve(reportsDir), analysis.summary) : path.resolve(flag);
  return dir === null ? null : readBaseline(dir);
}

export const reportCommand = defineCommand<ReportArgs>({
  command: VERBS.report.command,
  describe: VERBS.report.describe,
  builder: (y: Argv) =>
    ciOutputOptions(strictTimingOption(y))
      .positional('run-dirs', { type: 'string', array: true, describe: 'Run folders' })
      .option('out', { type: 'string', default: 'reports', describe: 'Reports folder' })
      .option('baseline', {
        type: 'string',
        describe:
          'Previous dated report folder to compare with ("Since last report"), or "auto": the newest earlier report of the same scenario and target in --out; a missing or malformed one exits 3',
      })
      .option('json', {
        type: 'boolean',
        default: false,
        describe: 'Print the report folder and files as JSON',
      }) as unknown as Argv<ReportArgs>,
  run: async (argv) => {
    const strict = strictTiming(argv.strictTiming);
    for (const d of argv.runDirs) if (existsSync(path.join(d, 'journal.ndjson'))) checkLedgerOfRun(d); // effects: exit 3
    const { analysis, dirs } = noteTornTails(await loadRuns(argv.runDirs));
    const baseline = await baselineFor(argv.baseline, analysis, argv.out); // read first: a bad baseline writes nothing
    const j = judge(analysis, { strictTiming: strict });
    const written = await writeReportFor(analysis, j, argv.out, baseline ?? undefined, dirs);
    writeCiOutputs(argv, { analysis, judgement: j, reportDir: written.dir });
    const since = baseline === null ? null : baseline.dir;
    if (argv.json)
      process.stdout.write(
        `${escapedJson({ schemaVersion: OUTPUT_SCHEMA_VERSION, ...written, verdict: j.verdict, timing: j.timing, baseline: since }, 2)}\n`,
      );
    else {
      const note =
        argv.baseline === undefined
          ? ''
          : `baseline: ${since ?? 'none (no earlier report of this scenario and target)'}\n`;
      const warning =
        j.timing.warning === null
          ? ''
          : `${wrapText(`warning: ${j.timing.warning}`, tableWidth(process.stdout)).join('\n')}\n`;
      process.stdout.write(
        visible(`report: ${path.join(written.dir, 'index.html')}\n${note}${warning}${verdictLine(j)}\n`),
      );
    }
    return exitCodeFor(j.verdict); // the report is written either way; the exit code says what it found
  },
});
