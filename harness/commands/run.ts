// `soak run`: run a soak from a scenario, then analyse, judge and write the dated report.
import { refuseMemoryPressure } from '../nemesis/memory-pressure.js';
import path from 'node:path';
import type { Argv } from 'yargs';
import { EXIT, InputError } from '../core/errors.js';
import { exitCodeFor } from '../gates/evaluate.js';
import { formatGateTable, tableWidth, wrapText } from '../report/text/gate-table.js';
import { escapedJson, visible } from '../core/visible.js';
import { streamProgress, quietProgress } from '../run/progress.js';
import type { RunResult } from '../run/runner.js';
import { continueRun } from '../run/continue-run.js';
import { runSoak } from '../run/soak.js';
import { parseShard, seedFromKey } from '../scenario/shard.js';
import { onStopSignals } from '../run/stop-signals.js';
import { recalledOptions } from '../run/run-options.js';
import { loadRuns, noteTornTails, resolveRunDir } from '../analysis/load-runs.js';
import { OUTPUT_SCHEMA_VERSION } from '../report/output-schemas.js';
import { ciOutputOptions, writeCiOutputs } from './ci-outputs.js';
import { loadScenario, overrideFlag } from '../scenario/scenario.js';
import { assertTargetName, validateTarget } from '../targets/registry.js';
import { judge, verdictLine } from '../gates/judge.js';
import { defineCommand } from './command.js';
import { VERBS } from './verbs.js';
import { strictTiming, strictTimingOption } from './strict-timing.js';
import {
  decideAfterCycle,
  decidedLine,
  untilDecidedOptions,
  untilDecidedOverrides,
  type UntilDecidedArgs,
} from './until-decided.js';

interface RunArgs extends UntilDecidedArgs {
  scenario?: string;
  target?: string;
  cycles?: number;
  seed?: number;
  seedFrom?: string;
  out: string;
  reportDir?: string;
  report: boolean;
  skewMs?: number;
  injectRestoreDelayMs?: number;
  budgetS?: number;
  bootSamples?: number;
  sessions?: number;
  json: boolean;
  verbose: boolean;
  resume?: string;
  shard?: string;
  judge: boolean;
  gatesDir?: string;
  junit?: string;
  summaryMd?: string;
  strictTiming?: boolean;
}

export const runCommand = defineCommand<RunArgs>({
  command: VERBS.run.command,
  describe: VERBS.run.describe,
  builder: (y: Argv) =>
    ciOutputOptions(
      untilDecidedOptions(strictTimingOption(y))
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
        .option('seed-from', {
          type: 'string',
          describe:
            'Derive the seed from this key (e.g. the date 2026-12-01) and the shard index: each shard its own seed, the same key the same seeds; recorded in run-start and the report',
        })
        .option('report-dir', {
          type: 'string',
          describe: 'Folder for the dated report (default: reports; with --resume, the one the run was started with)',
        })
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
        .option('boot-samples', {
          type: 'number',
          describe: 'Boot this many throwaway sessions before the cycles, one boot time each for gate 1 (0: none)',
        })
        .option('sessions', {
          type: 'number',
          describe:
            'Run this many sessions at once on this host (1-64, process target), each its own kill plan, one store',
        })
        .option('resume', {
          type: 'string',
          describe: 'Pick up a run folder whose runner died: kill its orphaned hosts, run the cycles not yet finished',
        })
        .option('shard', {
          type: 'string',
          describe:
            'Run one shard i/n of the cycles (0-based i; cycle c belongs to shard (c-1) mod n); combine with "soak merge"',
        })
        .option('judge', {
          type: 'boolean',
          default: true,
          describe:
            'Exit with the verdict of the gates (--no-judge: exit 0 once the cycles ran, whatever the gates say, for shards judged after "soak merge"; 3 bad input, 4 harness failure, 5 an adapter fault that ended the run, 130 aborted)',
        })
        .option('gates-dir', { type: 'string', describe: 'Folder of gate files (default: gates/ of the harness)' })
        .option('json', { type: 'boolean', default: false, describe: 'Print a JSON result on stdout instead of text' })
        .option('verbose', { type: 'boolean', default: false, describe: 'Log every cycle on stderr' }),
    ),
  run: async (argv, ctx) => {
    const stop = { requested: false };
    const say = (line: string): void => void process.stderr.write(visible(`\nsoak: ${line}\n`));
    // Installed until the report is written: a SIGTERM while it is written waits for it, a second one aborts.
    const unlisten = onStopSignals(stop, () => ctx.abort(EXIT.aborted), say);
    try {
      return await runAndReport(argv, stop);
    } finally {
      unlisten();
    }
  },
});

/** Run (or resume) the soak, then analyse, report and judge it; the exit code. */
async function runAndReport(argv: RunArgs, stop: { requested: boolean }): Promise<number> {
  const strict = strictTiming(argv.strictTiming); // a bad SOAK_STRICT_TIMING is bad input before anything runs
  const progress = argv.json ? quietProgress : streamProgress();
  const common = {
    progress,
    stop,
    logLevel: argv.verbose ? ('debug' as const) : ('warn' as const),
    decide: decideAfterCycle(argv.gatesDir, strict),
  };
  let result: RunResult;
  let reportsDir: string | null = argv.report ? path.resolve(argv.reportDir ?? 'reports') : null;
  if (argv.resume !== undefined) {
    const clash = (
      [
        'scenario',
        'target',
        'cycles',
        'seed',
        'seedFrom',
        'shard',
        'skewMs',
        'injectRestoreDelayMs',
        'budgetS',
        'bootSamples',
        'sessions',
        'untilDecided',
        'maxCycles',
        'maxDuration',
      ] as const
    ).filter((k) => argv[k] !== undefined);
    if (clash.length > 0)
      throw new InputError(
        `--resume continues a run with the scenario it started with: drop ${clash.map(overrideFlag).join(', ')}`,
      );
    if (!argv.json) process.stderr.write(visible(`soak: resuming ${argv.resume}\n`));
    const remembered = recalledOptions(resolveRunDir(argv.resume));
    if (argv.report && argv.reportDir === undefined && remembered?.reportDir) reportsDir = remembered.reportDir;
    result = await continueRun({ ...common, runDir: argv.resume });
  } else {
    const shard = argv.shard !== undefined ? parseShard(argv.shard) : undefined;
    if (argv.seedFrom !== undefined && argv.seed !== undefined)
      throw new InputError('--seed-from derives the seed: drop --seed (or --seed-from)');
    if (argv.seedFrom?.trim() === '') throw new InputError('--seed-from: expected a key such as a date, got ""');
    const seed = argv.seedFrom !== undefined ? seedFromKey(argv.seedFrom, shard) : argv.seed;
    const { scenario, file } = loadScenario(argv.scenario ?? 'default', {
      target: argv.target,
      seed,
      skewMs: argv.skewMs,
      injectRestoreDelayMs: argv.injectRestoreDelayMs,
      bootSamples: argv.bootSamples,
      sessions: argv.sessions,
      ...untilDecidedOverrides(argv),
    });
    if (argv.target !== undefined) assertTargetName(argv.target, '--target');
    await validateTarget(scenario.target, scenario.targetOptions, file);
    refuseMemoryPressure(scenario); // one line, exit 3, before anything is written
    if (!argv.json) {
      const shardText = shard ? `, shard ${shard.index}/${shard.count}` : '';
      const keyText = argv.seedFrom !== undefined ? ` (from key ${JSON.stringify(argv.seedFrom)})` : '';
      process.stderr.write(
        visible(
          `soak: scenario ${scenario.name} (${file}), target ${scenario.target}, ${scenario.untilDecided ? `until decided, at most ${scenario.cycles}` : scenario.cycles} cycles${shardText}${scenario.bootSamples > 0 ? ` after ${scenario.bootSamples} boot samples` : ''}${scenario.sessions > 1 ? `, ${scenario.sessions} sessions at once` : ''}, seed ${scenario.seed}${keyText}\n`,
        ),
      );
    }
    result = await runSoak({
      ...common,
      scenario,
      runsDir: path.resolve(argv.out),
      shard,
      ...(argv.seedFrom !== undefined ? { seedKey: argv.seedFrom } : {}),
      remember: { reportDir: reportsDir },
    });
  }

  const { analysis } = noteTornTails(await loadRuns([result.runDir]));
  const judgement = judge(analysis, { gatesDir: argv.gatesDir, strictTiming: strict });
  // imported here, not at the top: the report pulls in vega, which `soak run --help` does not need
  const { writeReportFor } = await import('./report.js');
  const reportDir =
    reportsDir !== null
      ? (await writeReportFor(analysis, judgement, reportsDir, undefined, [result.runDir])).dir
      : null;
  writeCiOutputs(argv, { analysis, judgement, reportDir });
  if (argv.json) {
    process.stdout.write(
      `${escapedJson({ schemaVersion: OUTPUT_SCHEMA_VERSION, runDir: result.runDir, status: result.status, reportDir, verdict: judgement.verdict, judged: argv.judge, summary: analysis.summary, gates: judgement.gates, timing: judgement.timing }, 2)}\n`,
    );
  } else {
    const s = analysis.summary;
    const width = tableWidth(process.stdout);
    const warning = judgement.timing.warning;
    const lines = [
      `run folder: ${result.runDir} (${result.status}, ${result.cycles} cycles run now, ${s.cycles.total} in the run)`,
      ...decidedLine(s),
      formatGateTable(judgement.gates, width),
      ...(s.violations > 0 ? [`violations: ${s.violations}, e.g. ${s.violationSamples[0] ?? ''}`] : []),
      ...(reportDir ? [`report: ${path.join(reportDir, 'index.html')}`] : []),
      ...(warning !== null ? wrapText(`warning: ${warning}`, width) : []),
      `${verdictLine(judgement)}${argv.judge ? '' : ' (not judged here: --no-judge, exit 0)'}`,
    ];
    process.stdout.write(visible(`${lines.join('\n')}\n`));
  }
  return argv.judge ? exitCodeFor(judgement.verdict) : EXIT.pass;
}
