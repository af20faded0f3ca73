// The resume checker: is the first full heartbeat after a restore a consistent, non-regressed, non-invented,
// same-session state? Pure: it takes what was observed and returns the violations (empty = verified).
import {
  type Heartbeat,
  type RanBeforeReport,
  stepsRunBound,
  type Violation,
  type ViolationCode,
  workFailuresPast,
} from './heartbeat.js';
import type { WorkloadModel } from './workload.js';

export interface ResumeObservation {
  /** The first full heartbeat the resumed session sent. */
  heartbeat: Heartbeat;
  /** The checkpoint the host said it restored. */
  restored: { seq: number; step: number };
  /** Highest step the killed session reported, read to EOF after the kill. */
  killStep: number;
  /** The session's boot nonce before the kill. */
  nonce: string;
  /** The newest complete checkpoint in the store after the kill, as the runner saw it (null: not checked). */
  latestCompleteSeq: number | null;
  /** After a power loss: the newest checkpoint whose commit was acknowledged before it (absent: not checked). */
  acknowledgedSeq?: number;
  /** How long the restored state could have run before that heartbeat (absent: the target cannot say; no step allowed). */
  ran?: RanBeforeReport;
  /**
   * The coding workload's failure count in the state the killed host started from (its first full heartbeat; absent:
   * 0). Failures past it happened in this cycle: after that start, before the kill or in the restored state.
   */
  workBefore?: number;
}

/** Every violation in one resumed heartbeat; an empty list means the resume is verified. */
export function checkResume(obs: ResumeObservation, model: WorkloadModel): Violation[] {
  const v: Violation[] = [];
  const add = (code: ViolationCode, message: string): void => void v.push({ code, message });
  const hb = obs.heartbeat;
  if (!hb.full || !hb.fs || !hb.mem || !hb.tool)
    return [
      { code: 'not-full', message: 'first heartbeat after restore is not a full heartbeat (fs, mem, tool missing)' },
    ];
  if (hb.nonce !== obs.nonce)
    add(
      'nonce',
      `boot nonce changed: ${hb.nonce} after restore, ${obs.nonce} before the kill (a fresh boot passed off as a resume?)`,
    );
  // Steps the restored state may have taken before it reported are new work, not invented: `ahead` is past them.
  const ran = stepsRunBound(obs.ran);
  const aheadLimit = obs.killStep + ran;
  const steps = { fs: hb.fs.step, mem: hb.mem.step, tool: hb.tool.step, heartbeat: hb.step };
  const distinct = new Set(Object.values(steps));
  if (distinct.size > 1) {
    add(
      'inconsistent',
      `inconsistent state: parts describe different steps (fs ${steps.fs}, mem ${steps.mem}, tool ${steps.tool}, heartbeat ${steps.heartbeat})`,
    );
  }
  for (const part of ['fs', 'mem', 'tool'] as const) {
    const s = hb[part]!.step;
    if (!Number.isInteger(s) || s < 0) {
      add('inconsistent', `${part}: step ${s} is not a valid step`);
      continue;
    }
    if (s <= aheadLimit + 1) {
      const want = model.expected(s)[part];
      if (hb[part]!.digest !== want)
        add(
          'digest',
          `${part}: digest at step ${s} is ${hb[part]!.digest.slice(0, 16)}…, expected ${want.slice(0, 16)}…`,
        );
    }
  }
  if (hb.step < obs.restored.step)
    add(
      'regressed',
      `regressed: resumed at step ${hb.step}, behind the restored checkpoint ${obs.restored.seq} (step ${obs.restored.step})`,
    );
  if (hb.step > aheadLimit) {
    const after =
      obs.ran === undefined ? '' : ` plus the ${ran} it could take in the ${obs.ran.ms} ms it ran before it reported`;
    add(
      'ahead',
      `invented work: resumed at step ${hb.step}, beyond the last step seen before the kill (${obs.killStep})${after}`,
    );
  }
  if (obs.latestCompleteSeq !== null && obs.restored.seq !== obs.latestCompleteSeq) {
    add(
      'not-latest',
      `restored checkpoint ${obs.restored.seq}, but the newest complete checkpoint was ${obs.latestCompleteSeq}`,
    );
  }
  if (obs.acknowledgedSeq !== undefined && obs.restored.seq < obs.acknowledgedSeq) {
    add(
      'lost-acknowledged-checkpoint',
      `lost an acknowledged checkpoint: restored ${obs.restored.seq}, but checkpoint ${obs.acknowledgedSeq} was acknowledged before the power loss`,
    );
  }
  const newFailures = workFailuresPast(hb.work, obs.workBefore);
  if (hb.work !== undefined && newFailures > 0)
    add(
      'work-failed',
      `the coding workload failed ${newFailures} more time(s) by its iteration ${hb.work.iteration} (last: ${hb.work.last}): its build, tests or server disagreed with the state`,
    );
  return v;
}
