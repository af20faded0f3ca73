// `soak run --until-decided [--max-cycles N] [--max-duration D]`: stop after the cycle at which the gates' anytime-valid
// decisions decide the verdict (gates/sequential.ts); the scenario's cycles and budget, or these flags, are the budget.
import type { Argv } from 'yargs';
import { InputError } from '../core/errors.js';
import { visible } from '../core/visible.js';
import { loadRuns } from '../analysis/load-runs.js';
import { judge } from '../gates/judge.js';
import { decidedBy } from '../gates/sequential.js';
import type { ScenarioOverrides } from '../scenario/scenario.js';
import type { Summary } from '../analysis/summary.js';

export interface UntilDecidedArgs {
  untilDecided?: boolean;
  maxCycles?: number;
  maxDuration?: string;
  cycles?: number;
  budgetS?: number;
}

/** Add --until-decided, --max-cycles and --max-duration to `soak run`. */
export function untilDecidedOptions<A>(y: Argv<A>): Argv<A> {
  return y
    .option('until-decided', {
      type: 'boolean',
      describe:
        'Stop after the cycle at which the verdict is decided (every gate decided at alpha by its anytime-valid test, or one failed); judged on those decisions (docs/anytime.md)',
    })
    .option('max-cycles', {
      type: 'number',
      describe:
        "With --until-decided: the most cycles to run (default: the scenario's cycles); undecided then: inconclusive",
    })
    .option('max-duration', {
      type: 'string',
      describe: "With --until-decided: the most wall time to run, e.g. 90s, 15m, 2h (default: the scenario's budget)",
    });
}

const UNIT_S: Record<string, number> = { s: 1, m: 60, h: 3600 };

/** "90s", "15m", "2h" or a plain number of seconds, in seconds; bad input: exit 3 naming the flag. */
export function parseDurationS(text: string, flag: string): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*([smh]?)\s*$/.exec(text);
  const seconds = m ? Number(m[1]) * (UNIT_S[m[2] || 's'] ?? 1) : Number.NaN;
  if (!(seconds > 0))
    throw new InputError(`${flag}: expected a duration such as 90s, 15m or 2h, got ${JSON.stringify(text)}`);
  return seconds;
}

/** The scenario overrides the flags ask for; --max-* without --until-decided, or beside --cycles/--budget-s: exit 3. */
export function untilDecidedOverrides(
  argv: UntilDecidedArgs,
): Pick<ScenarioOverrides, 'untilDecided' | 'cycles' | 'budgetS'> {
  const until = argv.untilDecided === true;
  if (!until && (argv.maxCycles !== undefined || argv.maxDuration !== undefined))
    throw new InputError(
      '--max-cycles and --max-duration are the budget of --until-decided (without it: --cycles, --budget-s)',
    );
  if (argv.maxCycles !== undefined && !(Number.isInteger(argv.maxCycles) && argv.maxCycles > 0))
    throw new InputError(`--max-cycles: expected a positive whole number of cycles, got ${argv.maxCycles}`);
  if (argv.maxCycles !== undefined && argv.cycles !== undefined)
    throw new InputError('--max-cycles and --cycles both set the cycles: drop one');
  if (argv.maxDuration !== undefined && argv.budgetS !== undefined)
    throw new InputError('--max-duration and --budget-s both set the time budget: drop one');
  const budgetS = argv.maxDuration !== undefined ? parseDurationS(argv.maxDuration, '--max-duration') : argv.budgetS;
  return { ...(until ? { untilDecided: true } : {}), cycles: argv.maxCycles ?? argv.cycles, budgetS };
}

/** After each cycle: judge the run folder's journal so far, and say what decided it (null: not yet). */
export function decideAfterCycle(
  gatesDir: string | undefined,
  strict: boolean,
): (runDir: string) => Promise<string | null> {
  return async (runDir) => {
    try {
      const { analysis } = await loadRuns([runDir]);
      return decidedBy(judge(analysis, { gatesDir, strictTiming: strict }).gates);
    } catch (err) {
      // judging is the stop rule, not the soak: a failure to judge runs on (to the budget), said once per cycle
      const why = err instanceof Error ? err.message.split('\n')[0] : String(err);
      process.stderr.write(visible(`soak: could not judge the run so far (${why}); running on\n`));
      return null;
    }
  };
}

/** The line a --until-decided run's output says how it stopped (none for another run). */
export function decidedLine(s: Pick<Summary, 'runStatus'>): string[] {
  const r = s.runStatus;
  if (r?.untilDecided !== true) return [];
  return r.decided
    ? [`decided at cycle ${r.decided.cycle}: ${r.decided.by}`]
    : ['not decided within the budget: every undecided gate is inconclusive'];
}
