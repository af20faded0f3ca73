// The hold fence's timing rules without QEMU: a held step counts as exact only when the stop lands in the first half of
// the agent's hold; a late acknowledgement is asked again, a missing one is not (it would answer the next request).
import { describe, expect, it } from 'vitest';
import { AGENT_HOLD_MS, type HeldAt, heldStepAtStop, holdFresh } from '../../../harness/targets/microvm/hold.js';

const ms = (n: number): bigint => BigInt(Math.round(n * 1e6));
const now = process.hrtime.bigint();
const heldAgo = (agoMs: number, step = 7): HeldAt => ({ step, requestedNs: now - ms(agoMs) });

describe('hold fence', () => {
  it('a stop early in the hold gives the held step; late in the hold or without a hold, none', () => {
    expect(heldStepAtStop(heldAgo(10), now)).toBe(7);
    expect(heldStepAtStop(heldAgo(AGENT_HOLD_MS / 2 + 1), now)).toBeUndefined(); // the restored guest could step first
    expect(heldStepAtStop(undefined, now)).toBeUndefined();
  });

  it('asks again after a late acknowledgement, at most `tries` times, and not after a missing one', async () => {
    const answers = [heldAgo(AGENT_HOLD_MS), heldAgo(AGENT_HOLD_MS), heldAgo(0, 9)];
    let asked = 0;
    const fresh = await holdFresh(() => Promise.resolve(answers[asked++]));
    expect(asked).toBe(3);
    expect(fresh?.step).toBe(9);
    asked = 0;
    expect(await holdFresh(() => (asked++, Promise.resolve(undefined)))).toBeUndefined();
    expect(asked).toBe(1);
    asked = 0;
    const late = await holdFresh(() => (asked++, Promise.resolve(heldAgo(AGENT_HOLD_MS))), 2);
    expect(asked).toBe(2);
    expect(heldStepAtStop(late)).toBeUndefined();
  });
});
