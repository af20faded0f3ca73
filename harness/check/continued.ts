// The freeze checker: after a SIGSTOP ... SIGCONT the same session must carry on where it stopped: its first full
// heartbeat after SIGCONT is consistent, has the expected digests, the same boot nonce, and is not behind the last step
// seen before the freeze (no lost steps). Pure: it takes what was observed and returns the violations.
import type { Heartbeat, Violation } from './heartbeat.js';
import { checkResume } from './checker.js';
import type { WorkloadModel } from './workload.js';

/** What the runner saw around a freeze. */
export interface ContinueObservation {
  /** The first full heartbeat the session sent after SIGCONT. */
  heartbeat: Heartbeat;
  /** Highest step the session reported before the freeze. */
  frozenStep: number;
  /** The session's boot nonce before the freeze. */
  nonce: string;
}

/** Every violation in the first full heartbeat after a freeze; empty: the session carried on unharmed. */
export function checkContinued(obs: ContinueObservation, model: WorkloadModel): Violation[] {
  const hb = obs.heartbeat;
  // The resume checker's part checks (full, nonce, consistent parts, digests) hold for a frozen session as they do for
  // a restored one; "ahead" and "regressed" do not apply as it words them (the session kept working; nothing was
  // restored), so the step is judged here against the last step seen before the freeze.
  const shared = checkResume(
    {
      heartbeat: hb,
      restored: { seq: 0, step: 0 },
      killStep: Math.max(hb.step, 0),
      nonce: obs.nonce,
      latestCompleteSeq: null,
    },
    model,
  ).filter((v) => v.code !== 'regressed' && v.code !== 'ahead');
  if (shared.some((v) => v.code === 'not-full')) return shared;
  if (hb.step < obs.frozenStep)
    shared.push({
      code: 'regressed',
      message: `lost steps across a freeze: step ${hb.step} after SIGCONT, step ${obs.frozenStep} seen before SIGSTOP`,
    });
  return shared;
}
