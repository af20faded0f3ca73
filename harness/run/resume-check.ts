// A restore host's resume, as every interruption judges it: listen for the restore's end and the first full heartbeat
// (both before anything arrives: they can come in one read), then journal the restore and what the checker looked at,
// and judge it. The soak's cycles and the demo's interruptions share it.
import { checkResume, type ResumeObservation } from '../check/checker.js';
import type { WorkloadModel } from '../check/workload.js';
import type { Violation } from '../journal/events.js';
import { observationEvent } from '../journal/observation.js';
import type { JournalWriter } from '../journal/writer.js';
import { isEv, isFullHeartbeat, type HostHandle } from '../session/host-handle.js';

/** The two messages a resume is judged on, listened for as soon as the host is spawned. */
export type PendingResume = ReturnType<typeof listenForResume>;

/** Start listening on `host` for its restore's end and first full heartbeat (a rejection is handled by judgeResume). */
export function listenForResume(host: HostHandle, timeoutMs: number) {
  const restored = host.waitFor(isEv('restore-end'), timeoutMs, 'restore-end');
  const firstFull = host.waitFor(isFullHeartbeat, timeoutMs, 'full heartbeat');
  restored.catch(() => {});
  firstFull.catch(() => {});
  return { restored, firstFull };
}

/** A judged resume: the checkpoint restored, the checker's violations, and when the first full heartbeat arrived. */
export interface JudgedResume {
  seq: number;
  step: number;
  violations: Violation[];
  heartbeatT: number;
}

/**
 * Wait for both messages, journal the restore and the observation (before its verdict, so `soak check` and analysis
 * can judge the stored run again), and run the checker. Rejects as the host's wait does (hung, gone, timed out).
 */
export async function judgeResume(
  pending: PendingResume,
  journal: JournalWriter,
  cycle: number,
  model: WorkloadModel,
  before: Omit<ResumeObservation, 'heartbeat' | 'restored'>,
): Promise<JudgedResume> {
  const [{ msg: end }, { msg: hb, t }] = await Promise.all([pending.restored, pending.firstFull]);
  const source = end.source === undefined ? {} : { source: end.source };
  journal.append({ type: 'restore', cycle, seq: end.seq, step: end.step, restoreMs: end.restoreMs, ...source });
  const { ev: _ev, ran, ...heartbeat } = hb;
  const observed: ResumeObservation = {
    ...before,
    heartbeat,
    restored: { seq: end.seq, step: end.step },
    ...(ran !== undefined ? { ran } : {}),
  };
  journal.append(observationEvent(cycle, observed));
  return { seq: end.seq, step: end.step, violations: checkResume(observed, model), heartbeatT: t };
}
