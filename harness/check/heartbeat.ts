// What a resumed session reports and what the checker can find wrong with it: the contract between targets and the checker.

/** One part of the session state as the workload reports it: which step it describes and its digest. */
export interface PartState {
  step: number;
  digest: string;
}

/**
 * A heartbeat from the agent. Light heartbeats carry only step and nonce; a full heartbeat
 * (the first after boot or restore, and on request) carries the three state parts so the checker can verify them.
 */
export interface Heartbeat {
  step: number;
  nonce: string;
  full: boolean;
  fs?: PartState;
  mem?: PartState;
  tool?: PartState;
  /** A session that emits external effects (issue 34): what its state says the world has seen (full heartbeats). */
  effects?: EffectsClaim;
  /** A session running the coding workload (targetOptions.workload): what its state says of that work (full heartbeats). */
  work?: WorkClaim;
}

/**
 * The coding workload's own account (vm-images/work/work.sh): iterations done, how many failed since the session booted
 * (a build, a test run or the server disagreeing with the state it was restored with), queries its server answered,
 * and the kind of the last failure (`-` none; `build`, `test`, `serve`, `unreadable`; `space`: a step failed with the
 * guest's own disk full, which the count leaves out: OUT_OF_SPACE).
 */
export interface WorkClaim {
  iteration: number;
  failures: number;
  served: number;
  last: string;
}

/** The last-failure kind of a step that failed with the guest's own disk full (not counted as a failure). */
export const OUT_OF_SPACE = 'space';

/**
 * The workload's failures in a resumed state past `before` (the count in the first full heartbeat of the host that was
 * killed; absent: 0): the cycle's own, which fail it (`work-failed`). 0 without an account or when none were added.
 */
export function workFailuresPast(work: WorkClaim | undefined, before: number | undefined): number {
  return work === undefined ? 0 : Math.max(0, work.failures - (before ?? 0));
}

/**
 * How long a restored state could have run before its first full heartbeat reached the host: from the instant the
 * target let it run (a micro-VM's `cont`) to the heartbeat's arrival, measured by the session host, with the session's
 * step period. A guest whose first request arrives late (a loaded machine) takes the steps that fall due first; at most
 * floor(ms / stepMs) + 2 of them (one due at once, one more to catch up once late, then one per period: agent.c).
 */
export interface RanBeforeReport {
  ms: number;
  stepMs: number;
}

/** The most steps a restored state could have taken in `ran` (0 when the target cannot say, or says nonsense). */
export function stepsRunBound(ran: RanBeforeReport | undefined): number {
  if (ran === undefined || !(ran.stepMs > 0) || !(ran.ms >= 0)) return 0;
  return Math.min(Math.floor(ran.ms / ran.stepMs) + 2, Number.MAX_SAFE_INTEGER);
}

/**
 * What a session's state says the world has seen: every effect acknowledged through step `through`, counted by key
 * discipline, claimed by agent process `incarnation` (a resumed session is a new incarnation).
 */
export interface EffectsClaim {
  through: number;
  acked: Record<string, number>;
  incarnation: string;
}

/** What a check found wrong; `code` is stable (analysis counts by it), `message` is for people. */
export interface Violation {
  code: ViolationCode;
  message: string;
}

export type ViolationCode =
  | 'not-full'
  | 'nonce'
  | 'inconsistent'
  | 'digest'
  | 'regressed'
  | 'ahead'
  | 'not-latest'
  | 'no-resume'
  | 'lost-acknowledged-checkpoint'
  | 'store-damaged'
  | 'nonce-reused'
  /** The coding workload in the resumed state reports failures: its build, tests or server disagreed with that state. */
  | 'work-failed'
  /** The session's exec adapter broke the protocol (AdapterError): a failed cycle, not a checker finding. */
  | 'adapter-fault'
  /** A wait on the session (first full heartbeat, a message it owed) ran out while its host answered. */
  | 'session-hung'
  /** A checkpoint paused the session longer than the scenario's checkpoint.timeoutMs, or did not complete within it. */
  | 'checkpoint-stuck';
