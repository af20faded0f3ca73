// Ask a microvm guest's agent to hold between steps (before a checkpoint's capture) and wait for its acknowledgement.
import { HOLD_REQUEST } from '../guest/console.js';

/** How long the agent holds after a request, in guest time (agent.c HOLD_MS); guest time runs with the host's clock. */
export const AGENT_HOLD_MS = 1000;

/** An acknowledged hold: the step the agent holds at, and when the request was written (process.hrtime). */
export interface HeldAt {
  step: number;
  requestedNs: bigint;
}

/** Acknowledgements of hold requests: the console's `HOLD <step>` lines go to `acked`. */
export class HoldRequests {
  private pending: (step: number) => void = () => {};

  /** Called for each `HOLD <step>` line the console parsed. */
  acked(step: number): void {
    this.pending(step);
  }

  /**
   * Write the hold request with `write`; the step the agent acknowledged (every heartbeat it wrote before has reached
   * us: one serial stream), or undefined after `timeoutMs` (capture anyway).
   */
  async request(write: (text: string) => void, timeoutMs = AGENT_HOLD_MS): Promise<HeldAt | undefined> {
    const requestedNs = process.hrtime.bigint();
    const acked = new Promise<number | undefined>((resolve) => {
      const timer = setTimeout(() => resolve(undefined), timeoutMs);
      this.pending = (step) => {
        clearTimeout(timer);
        resolve(step);
      };
    });
    write(HOLD_REQUEST);
    const step = await acked;
    this.pending = () => {};
    return step === undefined ? undefined : { step, requestedNs };
  }
}

/**
 * The agent's exact step when a stop has taken effect now: the held step if the stop came within the hold (the agent
 * took its hold after our request, so the hold outlasts AGENT_HOLD_MS from the request), else undefined.
 */
export function heldStepAtStop(held: HeldAt | undefined, nowNs = process.hrtime.bigint()): number | undefined {
  return held !== undefined && withinHold(held, nowNs) ? held.step : undefined;
}

/** Is it early enough in the hold that a stop now leaves the restored guest half the hold to read its first request? */
export function withinHold(held: HeldAt, nowNs = process.hrtime.bigint()): boolean {
  return Number(nowNs - held.requestedNs) / 1e6 < AGENT_HOLD_MS / 2;
}

/**
 * Request a hold until one is acknowledged early in its hold (a loaded guest may answer late): up to `tries` times. No
 * acknowledgement at all ends it (undefined): a late one would otherwise answer the next request.
 */
export async function holdFresh(hold: () => Promise<HeldAt | undefined>, tries = 3): Promise<HeldAt | undefined> {
  let held: HeldAt | undefined;
  for (let i = 0; i < tries; i++) {
    held = await hold();
    if (held === undefined || withinHold(held)) return held;
  }
  return held;
}
