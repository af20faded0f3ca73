// The observation event: the checker's input (ResumeObservation) as one flat journal event, and back again.
import type { ResumeObservation } from '../check/checker.js';
import type { EventInput, ObservationEvent } from './events.js';

/** The observation event of cycle `cycle` for what the checker is about to judge. */
export function observationEvent(cycle: number, obs: ResumeObservation): Extract<EventInput, { type: 'observation' }> {
  const hb = obs.heartbeat;
  return {
    type: 'observation',
    cycle,
    restoredSeq: obs.restored.seq,
    restoredStep: obs.restored.step,
    killStep: obs.killStep,
    nonce: obs.nonce,
    latestCompleteSeq: obs.latestCompleteSeq,
    step: hb.step,
    heartbeatNonce: hb.nonce,
    full: hb.full,
    ...(hb.fs ? { fs: { step: hb.fs.step, digest: hb.fs.digest } } : {}),
    ...(hb.mem ? { mem: { step: hb.mem.step, digest: hb.mem.digest } } : {}),
    ...(hb.tool ? { tool: { step: hb.tool.step, digest: hb.tool.digest } } : {}),
    ...(obs.acknowledgedSeq !== undefined ? { acknowledgedSeq: obs.acknowledgedSeq } : {}),
    ...(obs.ran !== undefined ? { ran: { ms: obs.ran.ms, stepMs: obs.ran.stepMs } } : {}),
    ...(hb.work !== undefined ? { work: { ...hb.work } } : {}),
    ...(obs.workBefore !== undefined ? { workBefore: obs.workBefore } : {}),
  };
}

/** An observation event's own fields (what the fast path reads without the line's envelope). */
export type ObservationFields = Omit<ObservationEvent, 'schemaVersion' | 't' | 'type'>;

/** The checker's input stored in an observation event. */
export function resumeObservation(ev: ObservationFields): ResumeObservation {
  return {
    heartbeat: {
      step: ev.step,
      nonce: ev.heartbeatNonce,
      full: ev.full,
      ...(ev.fs ? { fs: ev.fs } : {}),
      ...(ev.mem ? { mem: ev.mem } : {}),
      ...(ev.tool ? { tool: ev.tool } : {}),
      ...(ev.work ? { work: ev.work } : {}),
    },
    restored: { seq: ev.restoredSeq, step: ev.restoredStep },
    killStep: ev.killStep,
    nonce: ev.nonce,
    latestCompleteSeq: ev.latestCompleteSeq,
    ...(ev.acknowledgedSeq !== undefined ? { acknowledgedSeq: ev.acknowledgedSeq } : {}),
    ...(ev.ran !== undefined ? { ran: ev.ran } : {}),
    ...(ev.workBefore !== undefined ? { workBefore: ev.workBefore } : {}),
  };
}
