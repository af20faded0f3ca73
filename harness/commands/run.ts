// `soak run`: run a soak from a scenario, then analyse, judge and write the dated report.
import path from 'node:path';
import type { Argv } from 'yargs';
import { EXIT, InputError } from '../core/errors.js';
import { exitCodeFor, formatGateTable } from '../gates/evaluate.js';
import { streamProgress, quietProgress } from '../run/progress.js';
import { loadRuns, noteTornTails } from '../analysis/load-runs.js';
import type { RunResult } from '../run/runner.js';
import { resumeSoak } from '../run/resume.js';
import type { Shard } from '../run/shard.js';
import { runSoak } from '../run/soak.js';
import { loadScenario } from '../scenario/scenario.js';
import { assertTargetName, validateTarget } from '../targets/registry.js';
import { judge, verdictLine } from '../gates/judge.js';
import { writeReportFor } from './report.js';
import { defineCommand } from './command.js';

interface RunArgs {
  scenario?: string;
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
  resume?: string;
  shard?: string;
}

/** Parse `--shard i/n` (0-based index, as Kubernetes' JOB_COMPLETION_INDEX). */
export function parseShard(text: string): Shard {
  const m = /^(\d+)\/(\d+)$/.exec(text.trim());
  const index = Number(m?.[1]);
  const count = Number(m?.[2]);
  if (!m || count < 1 || index >= count)
    throw new InputError(`--shard: expected i/n with 0 <= i < n (e.g. 0/4), got "${text}"`);
  return { index, count };
}

export const runCommand = defineCommand<RunArgs>({
  command: 'run',
  describe:
    'Run a soak: boot a session, SIGKILL it at seeded random points, resume, verify; then report and judge the gates',
  builder: (y: Argv) =>
    y
      .option('scenario', {
        type: 'string',
        describe: 'Scenario name in scenarios/ or a path to a .yaml file (default: "default")',
      })
      .option('target', { type: 'string', describe: 'Override the scenario target (process | microvm)' })
      .option('cycles', { type: 'number', describe: 'Override the number of kill-and-resume cycles' })
      .option('seed', { type: 'number', describe: 'Override the PRNG seed (same seed, same kill plan)' })
      .option('out', {
        type: 'string',
        default: 'runs',
        describe: 'Folder that receives the run folder <timestamp>-<scenario>-s<seed>/',
      })
      .option('report-dir', { type: 'string', default: 'reports', describe: 'Folder for the dated report' })
      .option('report', {
        type: 'boolean',
        default: true,
        describe: 'Write the dated report after the run (--no-report to skip)',
      })
      .option('skew-ms', {
        type: 'number',
        describe: 'Negative control: capture the filesystem, then memory this many ms later',
      })
      .option('inject-restore-delay-ms', {
        type: 'number',
        describe: 'Fault injection: sleep this long inside every restore',
      })
      .option('budget-s', { type: 'number', describe: 'Stop cleanly after this many seconds' })
      .option('json', { type: 'boolean', default: false, describe: 'Print a JSON result on stdout instead of text' })
      .option('verbose', { type: 'boolean', default: false, describe: 'Log every cycle on stderr' })
      .option('resume', {
        type: 'string',
        describe: 'Pick up a run folder whose runner died: kill its orphaned hosts, run the cycles not yet finished',
      })
      .option('shard', {
        type: 'string',
        describe:
          'Run one shard i/n of the cycles (0-based i; cycle c belongs to shard (c-1) mod n); combine with "soak merge"',
      }) as unknown as Argv<RunArgs>,
  run: async (argv, ctx) => {
    const stop = { requested: false };
    const onSigint = (): void => {
      if (stop.requested) ctx.abort(EXIT.insufficient);
      stop.requested = true;
      process.stderr.write('\nstopping after the current cycle (Ctrl-C again to abort now)\n');
    };
    const progress = argv.json ? quietProgress : streamProgress();
    const common = { progress, stop, logLevel: argv.verbose ? ('debug' as const) : ('warn' as const) };
    let result: RunResult;
    process.on('SIGINT', onSigint);
    try {
      if (argv.resume !== undefined) {
        const clash = (
          ['scenario', 'target', 'cycles', 'seed', 'shard', 'skewMs', 'injectRestoreDelayMs', 'budgetS'] as const
        ).filter((k) => argv[k] !== undefined);
        if (clash.length > 0)
          throw new InputError(
            `--resume continues a run with the scenario it started with: drop ${clash.map((k) => `--${k.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`).join(', ')}`,
          );
        if (!argv.json) process.stderr.write(`soak: resuming ${argv.resume}\n`);
        result = await resumeSoak({ ...common, runDir: argv.resume });
      } else {
        const shard = argv.shard !== undefined ? parseShard(argv.shard) : undefined;
        const { scenario, file } = loadScenario(argv.scenario ?? 'default', {
          target: argv.target,
          cycles: argv.cycles,
          seed: argv.seed,
          skewMs: argv.skewMs,
          injectRestoreDelayMs: argv.injectRestoreDelayMs,
          budgetS: argv.budgetS,
        });
        if (argv.target !== undefined) assertTargetName(argv.target, '--target');
        await validateTarget(scenario.target, scenario.targetOptions, file);
        if (!argv.json) {
          const shardText = shard ? `, shard ${shard.index}/${shard.count}` : '';
          process.stderr.write(
            `soak: scenario ${scenario.name} (${file}), target ${scenario.target}, ${scenario.cycles} cycles${shardText}, seed ${scenario.seed}\n`,
          );
        }
        result = await runSoak({ ...common, scenario, runsDir: path.resolve(argv.out), shard });
      }
    } finally {
      process.off('SIGINT', onSigint);
    }

    const { analysis } = noteTornTails(await loadRuns([result.runDir]));
    const judgement = judge(analysis);
    const reportDir = argv.report
      ? (await writeReportFor(analysis, judgement.gates, argv.reportDir, [result.runDir])).dir
      : null;
    if (argv.json) {
      process.stdout.write(
        `${JSON.stringify({ runDir: result.runDir, status: result.status, reportDir, verdict: judgement.verdict, summary: analysis.summary, gates: judgement.gates }, null, 2)}\n`,
      );
    } else {
      const s = analysis.summary;
      process.stdout.write(
        `run folder: ${result.runDir} (${result.status}, ${result.cycles} cycles run now, ${s.cycles.total} in the run)\n`,
      );
      process.stdout.write(`${formatGateTable(judgement.gates)}\n`);
      if (s.violations > 0) process.stdout.write(`violations: ${s.violations}, e.g. ${s.violationSamples[0] ?? ''}\n`);
      if (reportDir) process.stdout.write(`report: ${path.join(reportDir, 'index.html')}\n`);
      process.stdout.write(`${verdictLine(judgement)}\n`);
    }
    return exitCodeFor(judgement.verdict);
  },
});
