// `soak report <run-dir...>`: write the dated report (index.html, summary.md, summary.json, cycles.csv, charts).
import path from 'node:path';
import type { Argv } from 'yargs';
import type { GateResult } from '../gates/types.js';
import { writeReport } from '../report/write.js';
import { loadRuns, noteTornTails } from '../analysis/load-runs.js';
import { durabilityRows, faultEvents } from '../analysis/durability.js';
import { defineCommand } from './command.js';
import type { RunAnalysis } from '../analysis/summary.js';
import { judge, verdictLine } from '../gates/judge.js';
import { exitCodeFor } from '../gates/verdict.js';
import { neutralizeBidi } from '../report/escape.js';

interface ReportArgs {
  runDirs: string[];
  out: string;
  json: boolean;
}

/** Write the report for an analysed run into `reportsDir`. */
export function writeReportFor(
  analysis: RunAnalysis,
  gates: GateResult[],
  reportsDir: string,
  /** The run folders analysed (their fault events give the durability table). */
  runDirs: readonly string[] = [],
): Promise<{ dir: string; files: string[] }> {
  const durability = durabilityRows(runDirs.map(faultEvents));
  return writeReport({ analysis, gates, reportsDir: path.resolve(reportsDir), durability });
}

export const reportCommand = defineCommand<ReportArgs>({
  command: 'report <run-dirs..>',
  describe:
    'Write the dated report reports/<yyyy-mm-dd>-<scenario>/ for run folders (several are reported as one sample); exit code of its verdict: 0 pass, 1 fail, 2 inconclusive or insufficient data',
  builder: (y: Argv) =>
    y
      .positional('run-dirs', { type: 'string', array: true, describe: 'Run folders' })
      .option('out', { type: 'string', default: 'reports', describe: 'Reports folder' })
      .option('json', {
        type: 'boolean',
        default: false,
        describe: 'Print the report folder and files as JSON',
      }) as unknown as Argv<ReportArgs>,
  run: async (argv) => {
    const { analysis, dirs } = noteTornTails(await loadRuns(argv.runDirs));
    const j = judge(analysis);
    const written = await writeReportFor(analysis, j.gates, argv.out, dirs);
    if (argv.json) process.stdout.write(`${JSON.stringify({ ...written, verdict: j.verdict }, null, 2)}\n`);
    else process.stdout.write(neutralizeBidi(`report: ${path.join(written.dir, 'index.html')}\n${verdictLine(j)}\n`));
    return exitCodeFor(j.verdict); // the report is written either way; the exit code says what it found
  },
});
