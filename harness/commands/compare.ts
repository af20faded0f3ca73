// `soak compare <run-a> <run-b>`: A/B on downtime and checkpoint pause (permutation test + bootstrap CI of the median difference).
import { realpathSync } from 'node:fs';
import type { Argv } from 'yargs';
import { EXIT } from '../core/errors.js';
import { escapedJson, visible } from '../core/visible.js';
import { loadRuns, noteTornTails } from '../analysis/load-runs.js';
import { comparisonWarnings, environmentsSideBySide, runProvenance } from '../analysis/provenance.js';
import { compareSamples, COMPARE_DEFAULTS, type Comparison } from '../stats/compare.js';
import { defineCommand } from './command.js';
import { numberFlag, wholeFlag } from './flags.js';
import { VERBS } from './verbs.js';
import { OUTPUT_SCHEMA_VERSION } from '../report/output-schemas.js';
import { fmtPValue } from '../report/text/format.js';

interface CompareArgs {
  runA: string;
  runB: string;
  seed: number;
  resamples: number;
  minEffectMs: number;
  minEffectRelative: number;
  json: boolean;
}

/** The side-by-side environments as aligned text lines. */
function sideBySide(rows: ReadonlyArray<readonly [string, string, string]>): string {
  const w0 = Math.max(...rows.map((r) => r[0].length));
  const w1 = Math.max(1, ...rows.map((r) => r[1].length));
  const line = (r: readonly string[]): string => `${r[0]!.padEnd(w0)}  ${r[1]!.padEnd(w1)}  ${r[2]}`.trimEnd();
  return `${[line(['', 'A (baseline)', 'B (candidate)']), ...rows.map(line)].join('\n')}\n\n`;
}

function fmt(name: string, c: Comparison | null): string {
  if (!c) return `${name}: not enough data in one of the runs`;
  const pct = c.relative === null ? '' : ` (${(c.relative * 100).toFixed(1)}%)`;
  return `${name}: median ${c.medianA.toFixed(1)} ms (n=${c.nA}) -> ${c.medianB.toFixed(1)} ms (n=${c.nB}), diff ${c.diff.toFixed(1)} ms${pct}, 95% CI [${c.ci[0].toFixed(1)}, ${c.ci[1].toFixed(1)}], p = ${fmtPValue(c.pValue)} (${c.method}, ${c.permutations} permutations): ${c.verdict.toUpperCase()}`;
}

export const compareCommand = defineCommand<CompareArgs>({
  command: VERBS.compare.command,
  describe: VERBS.compare.describe,
  builder: (y: Argv) =>
    y
      .positional('run-a', { type: 'string', demandOption: true, describe: 'Baseline run folder' })
      .positional('run-b', { type: 'string', demandOption: true, describe: 'Candidate run folder' })
      .option('seed', {
        type: 'number',
        default: COMPARE_DEFAULTS.seed,
        describe: 'Seed of the permutation and bootstrap resampling',
      })
      .option('resamples', {
        type: 'number',
        default: COMPARE_DEFAULTS.resamples,
        describe: 'Permutation resamples (>= 9999)',
      })
      .option('min-effect-ms', {
        type: 'number',
        default: COMPARE_DEFAULTS.minEffectMs,
        describe: 'Smallest median difference that counts, ms',
      })
      .option('min-effect-relative', {
        type: 'number',
        default: COMPARE_DEFAULTS.minEffectRelative,
        describe: 'Smallest median difference that counts, fraction of the baseline median',
      })
      .option('json', { type: 'boolean', default: false, describe: 'JSON output' }) as unknown as Argv<CompareArgs>,
  run: async (argv) => {
    const opts = {
      seed: wholeFlag('--seed', argv.seed, 0, 2 ** 32 - 1),
      resamples: Math.max(9999, wholeFlag('--resamples', argv.resamples, 1, 10_000_000)),
      minEffectMs: numberFlag('--min-effect-ms', argv.minEffectMs, 0, 3_600_000),
      minEffectRelative: numberFlag('--min-effect-relative', argv.minEffectRelative, 0, 1000),
    };
    const loadedA = noteTornTails(await loadRuns([argv.runA]));
    const loadedB = noteTornTails(await loadRuns([argv.runB]));
    const a = loadedA.analysis;
    const b = loadedB.analysis;
    const warnings = comparisonWarnings(
      runProvenance(a.summary, realpathSync(loadedA.dirs[0]!)),
      runProvenance(b.summary, realpathSync(loadedB.dirs[0]!)),
    );
    for (const w of warnings) process.stderr.write(visible(`soak: warning: ${w}\n`));
    const environments = environmentsSideBySide(a.summary, b.summary);
    const run = (x: ArrayLike<number>, y: ArrayLike<number>): Comparison | null =>
      x.length > 0 && y.length > 0 ? compareSamples(x, y, opts) : null;
    const downtime = run(a.downtimes, b.downtimes);
    const pause = run(a.checkpoints.pauseMs, b.checkpoints.pauseMs);
    const results = { downtimeMs: downtime, checkpointPauseMs: pause };
    if (argv.json)
      process.stdout.write(
        `${escapedJson({ schemaVersion: OUTPUT_SCHEMA_VERSION, runA: a.summary.runId, runB: b.summary.runId, warnings, environments, ...results }, 2)}
`,
      );
    else
      process.stdout.write(
        visible(`${sideBySide(environments)}${fmt('downtime', downtime)}\n${fmt('checkpoint pause', pause)}\n`),
      );
    const all = [downtime, pause];
    return all.some((c) => c?.verdict === 'regression')
      ? EXIT.fail
      : all.some((c) => c === null)
        ? EXIT.insufficient
        : EXIT.pass;
  },
});
