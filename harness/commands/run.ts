// `soak run`: run a soak from a scenario, then analyse, judge and write the dated report.
import path from 'node:path';
import type { ArgumentsCamelCase, Argv, CommandModule } from 'yargs';
import { EXIT } from '../errors.js';
import { exitCodeFor, formatGateTable } from '../gates.js';
import { streamProgress, quietProgress } from '../progress.js';
import { loadRuns } from '../run-dir.js';
import { runSoak } from '../runner.js';
import { loadScenario } from '../scenario.js';
import { assertTargetName } from '../targets/index.js';
import { judge, verdictLine } from './judge.js';
import { writeReportFor } from './report.js';
import { setExit } from './exit.js';

interface RunArgs {
  scenario: string;
  target?: string;
  cycles?: number;
  seed?: number;
  out: string;
  reportDir: string;
  report: boolean;
  skewMs?: number;
  injectRestoreDelayMs?: number;
  budgetS?: number;
  json: boolean;
  verbose: boolean;
}

export const runCommand: CommandModule<object, RunArgs> = {
  command: 'run',
  describe: 'Run a soak: boot a session, SIGKILL it at seeded random points, resume, verify; then report and judge the gates',
  builder: (y: Argv) =>
    y
      .option('scenario', { type: 'string', default: 'default', describe: 'Scenario name in scenarios/ or a path to a .yaml file' })
      .option('target', { type: 'string', describe: 'Override the scenario target (process | microvm)' })
      .option('cycles', { type: 'number', describe: 'Override the number of kill-and-resume cycles' })
      .option('seed', { type: 'number', describe: 'Override the PRNG seed (same seed, same kill plan)' })
      .option('out', { type: 'string', default: 'runs', describe: 'Folder that receives the run folder <timestamp>-<scenario>-s<seed>/' })
      .option('report-dir', { type: 'string', default: 'reports', describe: 'Folder for the dated report' })
      .option('report', { type: 'boolean', default: true, describe: 'Write the dated report after the run (--no-report to skip)' })
      .option('skew-ms', { type: 'number', describe: 'Negative control: capture the filesystem, then memory this many ms later' })
      .option('inject-restore-delay-ms', { type: 'number', describe: 'Fault injection: sleep this long inside every restore' })
      .option('budget-s', { type: 'number', describe: 'Stop cleanly after this many seconds' })
      .option('json', { type: 'boolean', default: false, describe: 'Print a JSON result on stdout instead of text' })
      .option('verbose', { type: 'boolean', default: false, describe: 'Log every cycle on stderr' }) as unknown as Argv<RunArgs>,
  handler: async (argv: ArgumentsCamelCase<RunArgs>) => {
    const { scenario, file } = loadScenario(argv.scenario, {
      target: argv.target,
      cycles: argv.cycles,
      seed: argv.seed,
      skewMs: argv.skewMs,
      injectRestoreDelayMs: argv.injectRestoreDelayMs,
      budgetS: argv.budgetS,
    });
    assertTargetName(scenario.target, argv.target !== undefined ? '--target' : `${file}: target`);
    const stop = { requested: false };
    const onSigint = (): void => {
      if (stop.requested) process.exit(EXIT.insufficient);
      stop.requested = true;
      process.stderr.write('\nstopping after the current cycle (Ctrl-C again to abort now)\n');
    };
    process.on('SIGINT', onSigint);
    const progress = argv.json ? quietProgress : streamProgress();
    if (!argv.json) process.stderr.write(`soak: scenario ${scenario.name} (${file}), target ${scenario.target}, ${scenario.cycles} cycles, seed ${scenario.seed}\n`);
    const result = await runSoak({ scenario, runsDir: path.resolve(argv.out), progress, stop, logLevel: argv.verbose ? 'debug' : 'warn' });
    process.off('SIGINT', onSigint);

    const { analysis } = loadRuns([result.runDir]);
    const judgement = judge(analysis);
    const reportDir = argv.report ? (await writeReportFor(analysis, judgement.gates, argv.reportDir)).dir : null;
    if (argv.json) {
      process.stdout.write(`${JSON.stringify({ runDir: result.runDir, status: result.status, reportDir, verdict: judgement.verdict, summary: analysis.summary, gates: judgement.gates }, null, 2)}\n`);
    } else {
      const s = analysis.summary;
      process.stdout.write(`run folder: ${result.runDir} (${result.status}, ${result.cycles} cycles)\n`);
      process.stdout.write(`${formatGateTable(judgement.gates)}\n`);
      if (s.violations > 0) process.stdout.write(`violations: ${s.violations}, e.g. ${s.violationSamples[0] ?? ''}\n`);
      if (reportDir) process.stdout.write(`report: ${path.join(reportDir, 'index.html')}\n`);
      process.stdout.write(`${verdictLine(judgement)}\n`);
    }
    setExit(exitCodeFor(judgement.verdict));
  },
};
