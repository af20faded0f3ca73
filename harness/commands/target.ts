// `soak target check <scenario-or-adapter>`: the conformance kit, a pass/fail table with evidence (--matrix: what
// guest state survives a resume, commands/target-matrix.ts); and
// `soak target schemas [--out dir]`: write the target protocol's JSON Schemas (schemas/target-protocol/).
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Argv } from 'yargs';
import { NOT_CHECKED, runBattery, type CheckResult } from '../conformance/battery.js';
import { checkEffects, type EffectsCheckResult } from '../conformance/effects-check.js';
import type { ConformanceTarget } from '../conformance/session.js';
import { mkdirDurable, writeFileAtomic } from '../core/durable.js';
import { EXIT, InputError } from '../core/errors.js';
import { type MatrixTrial, runMatrix } from '../conformance/matrix.js';
import { buildProbe } from '../targets/guest/probe-build.js';
import { formatMatrix, matrixExitCode, matrixJson, parseClockAfter, withProbe } from './target-matrix.js';
import { escapedJson, visible } from '../core/visible.js';
import { prettyJson } from '../core/json-text.js';
import { repoRoot } from '../core/repo-root.js';
import { loadScenario } from '../scenario/scenario.js';
import { protocolJsonSchemas } from '../targets/exec/messages.js';
import { validateTarget } from '../targets/registry.js';
import { defineCommand } from './command.js';
import { VERBS } from './verbs.js';

interface CheckArgs {
  what: string;
  json: boolean;
  keep: string | undefined;
  matrix: boolean;
  trials: number | undefined;
  'clock-after': string | undefined;
}

/** A scenario (name or .yaml) gives target and pacing; any other existing file is an adapter with default pacing. */
async function resolveTarget(what: string): Promise<ConformanceTarget> {
  const isAdapter = existsSync(what) && !/\.ya?ml$/.test(what);
  if (isAdapter) {
    const options = { adapter: path.resolve(what), adapterOptions: {} };
    await validateTarget('exec', options, what);
    return { target: 'exec', targetOptions: options, stepMs: 5, checkpointEveryMs: 1000, timeoutMs: 60_000 };
  }
  const { scenario, file } = loadScenario(what);
  await validateTarget(scenario.target, scenario.targetOptions, file);
  return {
    target: scenario.target,
    targetOptions: scenario.targetOptions,
    stepMs: scenario.stepMs,
    checkpointEveryMs: scenario.checkpoint.everyMs,
    timeoutMs: Math.max(scenario.resumeTimeoutMs, scenario.hostTimeoutMs),
  };
}

/** --json: every check with its verdict and evidence, and the classes of guest state the battery did not check. */
export function checksJson(results: CheckResult[], effects: EffectsCheckResult): string {
  return `${escapedJson({ schemaVersion: 1, checks: results, effects, notChecked: NOT_CHECKED }, 2)}\n`;
}

const WORD: Record<EffectsCheckResult['verdict'], string> = {
  pass: 'PASS',
  fail: 'FAIL',
  'adapter-fault': 'ADAPTER FAULT',
  'not-declared': 'not declared',
};

/** The battery's checks and the effects check (id `effects`) as one list, for the verdict. */
const withEffects = (results: CheckResult[], effects: EffectsCheckResult): { id: string; verdict: string }[] => [
  ...results,
  { id: 'effects', verdict: effects.verdict },
];

/**
 * The table: one line per check, its verdict and evidence; the effects line ("effects: not declared" is no failure);
 * then what was not checked, and the verdict.
 */
export function formatChecks(results: CheckResult[], effects: EffectsCheckResult): string {
  const w = Math.max(...results.map((r) => r.id.length));
  const lines = results.map((r) => `${r.id.padEnd(w)}  ${WORD[r.verdict]}  ${r.evidence}`);
  lines.push(`effects: ${WORD[effects.verdict]}  ${effects.evidence}`);
  const all = withEffects(results, effects);
  const failed = all.filter((r) => r.verdict === 'fail').map((r) => r.id);
  const faulted = all.filter((r) => r.verdict === 'adapter-fault').map((r) => r.id);
  lines.push('not checked (a PASS says nothing about these):', ...NOT_CHECKED.map((c) => `  - ${c}`));
  if (failed.length > 0) lines.push(`verdict: FAIL (${failed.join(', ')})`);
  else if (faulted.length > 0)
    lines.push(`verdict: ADAPTER FAULT (${faulted.join(', ')}: the adapter broke the protocol)`);
  else lines.push('verdict: PASS (every check above; not the classes listed as not checked)');
  return `${lines.join('\n')}\n`;
}

/** Exit code of a battery: 1 when a check failed, else 5 when the adapter broke the protocol, else 0. */
export function checksExitCode(results: CheckResult[], effects: EffectsCheckResult): number {
  const all = withEffects(results, effects);
  if (all.some((r) => r.verdict === 'fail')) return EXIT.fail;
  return all.some((r) => r.verdict === 'adapter-fault') ? EXIT.adapterFault : EXIT.pass;
}

/** The effects check in `keep`/effects, or in a temporary folder removed after. */
async function checkEffectsIn(t: ConformanceTarget, keep: string | undefined): Promise<EffectsCheckResult> {
  const dir = keep ? path.join(keep, 'effects') : mkdtempSync(path.join(os.tmpdir(), 'soak-effects-check-'));
  try {
    return await checkEffects(t, dir);
  } finally {
    if (!keep) rmSync(dir, { recursive: true, force: true });
  }
}

const checkCommand = defineCommand<CheckArgs>({
  command: 'check <what>',
  describe: 'Conformance kit: run the fixed battery against a target (scenario name/file, or an adapter program)',
  builder: (y: Argv) =>
    y
      .positional('what', { type: 'string', demandOption: true, describe: 'Scenario name or file, or adapter path' })
      .option('json', { type: 'boolean', default: false, describe: 'JSON output' })
      .option('keep', { type: 'string', describe: 'Keep stores and host logs in this folder' })
      .option('matrix', {
        type: 'boolean',
        default: false,
        describe: 'Measure what guest state survives a resume, class by class (docs/what-survives.md)',
      })
      .option('trials', { type: 'number', describe: 'With --matrix: kill/resume trials (default 20)' })
      .option('clock-after', {
        type: 'string',
        describe: 'With --matrix: read the wall clock again these seconds after each resume (of 1,5,30; none)',
      }),
  run: async (argv) => {
    if (argv.matrix) return matrixCommand(argv, argv.trials ?? 20);
    if (argv.trials !== undefined) throw new InputError('--trials: only with --matrix');
    if (argv['clock-after'] !== undefined) throw new InputError('--clock-after: only with --matrix');
    const target = await resolveTarget(argv.what);
    const keep = argv.keep && path.resolve(argv.keep);
    const results = await runBattery(target, keep);
    const effects = await checkEffectsIn(target, keep);
    process.stdout.write(argv.json ? checksJson(results, effects) : visible(formatChecks(results, effects)));
    return checksExitCode(results, effects);
  },
});

/** --matrix: N kill/resume trials with the guest-state probe, the matrix printed as it is measured to the end. */
async function matrixCommand(argv: CheckArgs, n: number): Promise<number> {
  if (!Number.isInteger(n) || n < 1 || n > 10_000)
    throw new InputError(`--trials: expected an integer from 1 to 10000, got ${String(n)}`);
  const clockAfter = parseClockAfter(argv['clock-after'] ?? '1,5,30');
  const target = withProbe(await resolveTarget(argv.what), await buildProbe(), clockAfter);
  const keep = argv.keep && path.resolve(argv.keep);
  const progress = (t: MatrixTrial): void => {
    if (!argv.json)
      process.stderr.write(`trial ${t.trial}/${n}: ${t.report ? 'measured' : visible(t.problem ?? '')}\n`);
  };
  const trials = await runMatrix(target, n, progress, keep);
  process.stdout.write(argv.json ? matrixJson(argv.what, trials) : visible(formatMatrix(argv.what, trials)));
  return matrixExitCode(trials);
}

const schemasCommand = defineCommand<{ out: string }>({
  command: 'schemas',
  describe: "Write the target protocol's JSON Schemas (one file per message)",
  builder: (y: Argv) =>
    y.option('out', {
      type: 'string',
      default: path.join(repoRoot(), 'schemas', 'target-protocol'),
      describe: 'Folder to write into',
    }),
  run: (argv) => {
    mkdirDurable(argv.out);
    // As prettier prints them (the files lint clean); each through an unguessable temp name and a rename, so a
    // symlink planted in the folder (at a file's name or any temp name) is replaced or refused, never written through.
    for (const [name, schema] of Object.entries(protocolJsonSchemas()))
      writeFileAtomic(path.join(argv.out, name), prettyJson(schema));
    process.stdout.write(visible(`wrote ${Object.keys(protocolJsonSchemas()).length} schemas to ${argv.out}\n`));
    return EXIT.pass;
  },
});

/** `soak target check|schemas`. */
export const targetCommand = {
  command: VERBS.target.command,
  describe: VERBS.target.describe,
  subcommands: [checkCommand, schemasCommand],
};
