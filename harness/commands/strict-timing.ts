// --strict-timing, the judging option of `soak run`, `soak report`, `soak gates` and `soak watch`: a timing gate that
// fails on a saturated machine fails as measured (default: inconclusive (saturated), gates/verdict.ts timingVerdict).
// Without the flag, the environment decides (SOAK_STRICT_TIMING=1), so a pipeline says it once for every step: the
// nightly's shards and its finish step (deploy/), a CI job's env.
import type { Argv } from 'yargs';
import { InputError } from '../core/errors.js';

/** The environment variable that turns strict timing on when no flag says otherwise. */
export const STRICT_TIMING_ENV = 'SOAK_STRICT_TIMING';

/** Add --strict-timing to a judging verb's options. */
export function strictTimingOption<A>(y: Argv<A>): Argv<A> {
  return y.option('strict-timing', {
    type: 'boolean',
    describe: `Judge timing gates as measured even on a saturated machine (default: a timing gate that fails there is "inconclusive (saturated)", exit 2; default from ${STRICT_TIMING_ENV}=1)`,
  });
}

/** Strict timing as the flag says, else as SOAK_STRICT_TIMING says (1/true on, 0/false/unset off; anything else: exit 3). */
export function strictTiming(flag: boolean | undefined, env: NodeJS.ProcessEnv = process.env): boolean {
  if (flag !== undefined) return flag;
  const v = env[STRICT_TIMING_ENV]?.trim().toLowerCase();
  if (v === undefined || v === '' || v === '0' || v === 'false') return false;
  if (v === '1' || v === 'true') return true;
  throw new InputError(`${STRICT_TIMING_ENV}: expected 1 or 0, got ${JSON.stringify(env[STRICT_TIMING_ENV])}`);
}
