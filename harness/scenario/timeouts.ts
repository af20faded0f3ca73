// The timeouts of every wait on a session host, from a scenario (README "Timeouts").
import { CHECKPOINT_TIMEOUT_MS, type Scenario } from './scenario.js';

/** The timeouts of every wait on a host (README "Timeouts"); journals from before hostTimeoutMs get its default. */
export interface HostTimeouts {
  /** Boot or restore to the first full heartbeat (and the first checkpoint when a session starts). */
  resumeMs: number;
  /** Any other expected message (a checkpoint to begin), a killed host to be gone, a host's sign of life. */
  hostMs: number;
  /** A checkpoint's pause, and its begin to its commit (scenario checkpoint.timeoutMs). */
  checkpointMs: number;
}

/** The host timeouts of `scenario` (journals from before a field get its default). */
export function hostTimeouts(scenario: Scenario): HostTimeouts {
  const hostMs = (scenario as Partial<Scenario>).hostTimeoutMs ?? 10_000;
  const checkpointMs = (scenario.checkpoint as Partial<Scenario['checkpoint']>).timeoutMs ?? CHECKPOINT_TIMEOUT_MS;
  return { resumeMs: scenario.resumeTimeoutMs, hostMs, checkpointMs };
}
