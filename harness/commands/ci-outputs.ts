// The CI-native outputs `soak run`, `soak report` and `soak gates` share: --junit FILE (JUnit XML, one testcase per
// gate) and --summary-md FILE (GitHub-flavoured Markdown for $GITHUB_STEP_SUMMARY).
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Argv } from 'yargs';
import type { RunAnalysis } from '../analysis/summary.js';
import { writeFileAtomic } from '../core/durable.js';
import { diskErrno, DiskError, InputError } from '../core/errors.js';
import type { Judgement } from '../gates/judge.js';
import { buildModel } from '../report/model.js';
import { renderJunit } from '../report/text/junit.js';
import { renderStepSummary } from '../report/text/step-summary.js';

/** The two flags, as parsed. */
export interface CiOutputArgs {
  junit?: string;
  summaryMd?: string;
}

/** Add --junit and --summary-md to a verb's options. */
export function ciOutputOptions<A>(y: Argv<A>): Argv<A> {
  return y
    .option('junit', {
      type: 'string',
      describe:
        'Also write the gates as JUnit XML to this file: one testcase per gate; fail is a <failure>, insufficient or inconclusive a <skipped>, adapter faults one <error>',
    })
    .option('summary-md', {
      type: 'string',
      describe: 'Also write a GitHub-flavoured Markdown summary to this file (e.g. "$GITHUB_STEP_SUMMARY")',
    });
}

/** What the outputs are made of: the analysed run, its judgement and the dated report's folder (null: none). */
export interface CiOutputInput {
  analysis: RunAnalysis;
  judgement: Judgement;
  reportDir: string | null;
}

/** Write the outputs asked for (each atomically; its folder created); a bad path is bad input naming the flag. */
export function writeCiOutputs(args: CiOutputArgs, input: CiOutputInput): void {
  if (args.junit === undefined && args.summaryMd === undefined) return;
  const model = buildModel(input.analysis, input.judgement.gates, undefined, input.judgement.timing);
  if (args.junit !== undefined)
    writeOutput('--junit', args.junit, () =>
      renderJunit({
        summary: model.summary,
        gates: model.gates,
        verdict: input.judgement.verdict,
        reportDir: input.reportDir,
        timing: input.judgement.timing,
      }),
    );
  if (args.summaryMd !== undefined)
    writeOutput('--summary-md', args.summaryMd, () => renderStepSummary(model, input.reportDir));
}

function writeOutput(flag: string, file: string, render: () => string): void {
  const abs = path.resolve(file);
  try {
    mkdirSync(path.dirname(abs), { recursive: true });
    writeFileAtomic(abs, render());
  } catch (err) {
    const errno = diskErrno(err);
    if (errno) throw new DiskError(abs, errno, { cause: err });
    const why = err instanceof Error ? err.message : String(err);
    throw new InputError(`${flag} ${file}: cannot write it (${why})`, { cause: err });
  }
}
