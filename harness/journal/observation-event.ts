// The observation event's fields: what the checker looked at after a restore; kept beside events.ts so the journal's
// event list stays one screen.
import type { PartState, RanBeforeReport, WorkClaim } from '../check/heartbeat.js';

/**
 * What the checker looked at after a restore (check/checker.ts's ResumeObservation, flat), journaled just before the
 * cycle's outcome so a stored run can be re-judged (`soak check`). Absent when the session never sent a heartbeat.
 */
export interface ObservationEventFields {
  cycle: number;
  /** The checkpoint the host said it restored. */
  restoredSeq: number;
  restoredStep: number;
  /** Highest step the killed session reported, over all of the cycle's kills. */
  killStep: number;
  /** The session's boot nonce before the kill. */
  nonce: string;
  /** The newest complete checkpoint in the store after the kill, as the runner saw it (null: not checked). */
  latestCompleteSeq: number | null;
  /** The newest checkpoint acknowledged before a power loss (only on power-loss cycles: the checker holds it to it). */
  acknowledgedSeq?: number;
  /** How long the restored state could have run before the heartbeat below (targets that can say: micro-VM). */
  ran?: RanBeforeReport;
  /** The coding workload's account in that heartbeat (guests running it: targetOptions.workload coding). */
  work?: WorkClaim;
  /** The workload's failures in the state the killed host started from (the checker counts only failures past it). */
  workBefore?: number;
  /** The first full heartbeat after the restore: its step, nonce and parts (parts absent when it was not full). */
  step: number;
  heartbeatNonce: string;
  full: boolean;
  fs?: PartState;
  mem?: PartState;
  tool?: PartState;
}
