// TEST-ONLY fault injection: environment knobs the test suite sets to make the runner fail where a real fault
// would be slow or unsafe to provoke. Nothing sets them in normal use; each is named SOAK_TEST_* so it cannot be
// mistaken for a setting.

/** SOAK_TEST_RUNNER_ERROR_AFTER=<n>: the runner throws an internal error once it has run n cycles (test-only). */
export const RUNNER_ERROR_AFTER = 'SOAK_TEST_RUNNER_ERROR_AFTER';

/** Throw the injected internal error when SOAK_TEST_RUNNER_ERROR_AFTER asks for one after `done` cycles. */
export function injectedRunnerError(done: number, env: NodeJS.ProcessEnv = process.env): void {
  const after = env[RUNNER_ERROR_AFTER];
  if (after !== undefined && after !== '' && Number(after) === done)
    throw new Error(`injected runner error after ${done} cycles (${RUNNER_ERROR_AFTER}, test-only)`);
}

/**
 * SOAK_TEST_SKEW_SESSION=<i>: session i of a run of several sessions checkpoints skewed (skewMs 200: test-only; at 40 a
 * starved agent under load did not step within the skew in any of session 1's checkpoints, and the control missed).
 */
export const SKEW_SESSION = 'SOAK_TEST_SKEW_SESSION';

/** Session `index`'s scenario with the skew SOAK_TEST_SKEW_SESSION plants in it, if it names that session. */
export function injectedSessionSkew<S extends { skewMs: number }>(s: S, index: number, env = process.env): S {
  return env[SKEW_SESSION] === String(index) ? { ...s, skewMs: 200 } : s;
}

/** SOAK_TEST_ABORT_SESSION=<i>: session i of a run of several sessions aborts after its first cycle (test-only). */
export const ABORT_SESSION = 'SOAK_TEST_ABORT_SESSION';

/** The cycles session `index` runs before SOAK_TEST_ABORT_SESSION aborts it (all of them when it names another). */
export function injectedSessionAbort(cycles: number[], index: number, env = process.env): number[] | null {
  return env[ABORT_SESSION] === String(index) ? cycles.slice(0, 1) : null;
}
