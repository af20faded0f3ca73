// `soak report <run-dir...>`: write the dated report (index.html, summary.md, summary.json, cycles.csv, charts).
import path from 'node:path';
import type { Argv } from 'yargs';
import type { GateResult } from '../gates/types.js';
import { writeReport } from '../report/write.js';
import { loadRuns, noteTornTails } from '../analysis/load-runs.js';
import { defineCommand } from './command.js';
import { VERBS } from './verbs.js';
import { ciOutputOptions, writeCiOutputs } from './ci-outputs.js';
import { OUTPUT_SCHEMA_VERSION } from '../report/output-schemas.js';
import type { RunAnalysis } from '../analysis/summary.js';
import { judge, verdictLine } from '../gates/judge.js';
import { exitCodeFor } from '../gates/verdict.js';
import { neutralizeBidi } from '../report/escape.js';

interface ReportArgs {
  runDirs: string[];
  out: string;
  json: boolean;
  junit?: string;
  summaryMd?: string;
}

/** Write the report for an analysed run into `reportsDir`. */
export function writeReportFor(
  analysis: RunAnalysis,
  gates: GateResult[],
  reportsDir: string,
): Promise<{ dir: string; files: string[] }> {
  return writeReport({ analysis, gates, reportsDir: path.resolve(reportsDir) });
}

export const reportCommand = defineCommand<ReportArgs>({
  command: VERBS.report.command,
  describe: VERBS.report.describe,
  builder: (y: Argv) =>
    ciOutputOptions(y)
      .positional('run-dirs', { type: 'string', array: true, describe: 'Run folders' })
      .option('out', { type: 'string', default: 'reports', describe: 'Reports folder' })
      .option('json', {
        type: 'boolean',
        default: false,
        describe: 'Print the report folder and files as JSON',
      }) as unknown as Argv<ReportArgs>,
  run: async (argv) => {
    const { analysis } = noteTornTails(await loadRuns(argv.runDirs));
    const j = judge(analysis);
    const written = await writeReportFor(analysis, j.gates, argv.out);
    writeCiOutputs(argv, { analysis, judgement: j, reportDir: written.dir });
    if (argv.json)
      process.stdout.write(
        `${JSON.stringify({ schemaVersion: OUTPUT_SCHEMA_VERSION, ...written, verdict: j.verdict }, null, 2)}\n`,
      );
    else process.stdout.write(neutralizeBidi(`report: ${path.join(written.dir, 'index.html')}\n${verdictLine(j)}\n`));
    return exitCodeFor(j.verdict); // the report is written either way; the exit code says what it found
  },
});
