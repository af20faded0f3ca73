// Re-judging a stored run: the checker run again over every journaled observation, each verdict compared with the one
// the run journaled (as Jepsen checks the stored history after the run, so a changed checker can re-judge an old run).
import { checkResume } from '../check/checker.js';
import type { Violation, ViolationCode } from '../check/heartbeat.js';
import { ADAPTER_FAULT_PREFIX, EXIT } from '../core/errors.js';
import { WorkloadModel } from '../check/workload.js';
import type { JournalEvent, ObservationEvent, Outcome } from '../journal/events.js';
import { sessionCycleKey } from '../journal/session-key.js';
import { resumeObservation, type ObservationFields } from '../journal/observation.js';

/** One cycle whose re-checked verdict (outcome or violation codes) differs from the journaled one. */
export interface ChangedVerdict {
  cycle: number;
  journaled: { outcome: Outcome; codes: string[] };
  rechecked: { outcome: Outcome; violations: Violation[] };
}

/** What re-checking a journal found. */
export interface RecheckResult {
  /** Cycle outcomes in the journal. */
  cycles: number;
  /** Of those, re-checked from their journaled observation. */
  rechecked: number;
  /** Re-checked cycles whose verdict is the journaled one. */
  agreed: number;
  changed: ChangedVerdict[];
  /** Cycles with no observation: the session never resumed, or the journal predates observations. */
  unobserved: number;
  /** Cycles journaled indeterminate (an infrastructure fault): never re-judged (rejudges()), listed by id. */
  indeterminate: number[];
  /** Cycles the run journaled as failed. */
  journaledFailures: number;
  /** Re-checked cycles in which the checker, run again, finds violations. */
  recheckedFailures: number;
  /**
   * Adapter faults (an exec adapter broke the protocol: its fault, not the runtime's): cycles failed with adapter-fault
   * violations only, and runners that ended on one (a boot). They make the verdict adapter-fault (exit 5), as the run's.
   */
  adapterFaults: number;
  /** Failed cycles with a violation of the system under test (journaled or found again): these make a FAIL. */
  systemFailures: number;
}

/** The distinct violation codes of a list, sorted: what a verdict comparison looks at (messages are for people). */
export const codesOf = (vs: readonly { code: string }[]): string[] => [...new Set(vs.map((v) => v.code))].sort();

/** A verdict the checker reaches again from a journaled observation. */
export interface RecheckedVerdict {
  outcome: 'ok' | 'fail';
  violations: Violation[];
}

/** The checker's verdict on one journaled observation (`model` is reused across calls: it caches the workload). */
export function recheckObservation(obs: ObservationFields, model: WorkloadModel): RecheckedVerdict {
  const violations = checkResume(resumeObservation(obs), model);
  return { outcome: violations.length === 0 ? 'ok' : 'fail', violations };
}

/**
 * Violations the runner finds outside the checker (the store verified after an injected write error; a fresh session's
 * nonce seen before, run/fresh-nonce.ts; an adapter fault, run/adapter-fault.ts; a session or checkpoint stuck while
 * its host answered): they are not in the observation, so a re-check cannot find them again and must keep them.
 */
export const FOUND_OUTSIDE_CHECKER: ReadonlySet<string> = new Set<ViolationCode>([
  'store-damaged',
  'nonce-reused',
  'adapter-fault',
  'session-hung',
  'checkpoint-stuck',
]);

/** The re-checked verdict plus the journaled violations the checker cannot see (a cycle with any of them fails). */
export function keepOutsideFindings(v: RecheckedVerdict, journaled: readonly Violation[]): RecheckedVerdict {
  const kept = journaled.filter((x) => FOUND_OUTSIDE_CHECKER.has(x.code));
  return kept.length === 0 ? v : { outcome: 'fail', violations: [...v.violations, ...kept] };
}

/**
 * Whether a cycle journaled with this outcome is judged again from its observation: an indeterminate outcome (the
 * harness or the machine failed, possibly after the observation) is no verdict about the system and stays
 * indeterminate. The one rule for `soak check` (Rechecker) and analysis (analysis/rejudge.ts).
 */
export function rejudges(journaled: Outcome): boolean {
  return journaled !== 'indeterminate';
}

/** Whether a re-checked verdict is the journaled one: the same outcome and the same distinct violation codes. */
export function sameVerdict(journaled: { outcome: Outcome; codes: readonly string[] }, v: RecheckedVerdict): boolean {
  return journaled.outcome === v.outcome && codesOf(v.violations).join(' ') === [...journaled.codes].join(' ');
}

/** Fed a journal's events in order, re-checks each cycle's observation when its outcome arrives. */
export class Rechecker {
  private readonly model = new WorkloadModel();
  /** Observations waiting for their cycle's outcome (a later one for the same id, after a resume, replaces it). */
  private readonly pending = new Map<number, ObservationEvent>();
  private readonly r: RecheckResult = {
    cycles: 0,
    rechecked: 0,
    agreed: 0,
    changed: [],
    unobserved: 0,
    indeterminate: [],
    journaledFailures: 0,
    recheckedFailures: 0,
    adapterFaults: 0,
    systemFailures: 0,
  };

  private sawRunStart = false;

  /** Whether a run-start event came: a journal without one was not written by `soak run` (bad input). */
  get started(): boolean {
    return this.sawRunStart;
  }

  /** One journal event. */
  add(e: JournalEvent): void {
    if (e.type === 'run-start') this.sawRunStart = true;
    if (e.type === 'observation') {
      this.pending.set(sessionCycleKey(e.session, e.cycle), e); // cycle ids repeat across sessions
      return;
    }
    if (e.type === 'run-end' && e.status === 'aborted' && e.reason?.startsWith(ADAPTER_FAULT_PREFIX) === true)
      this.r.adapterFaults++;
    if (e.type !== 'cycle') return;
    const r = this.r;
    r.cycles++;
    if (e.outcome === 'fail') r.journaledFailures++;
    const obs = this.pending.get(sessionCycleKey(e.session, e.cycle));
    this.pending.delete(sessionCycleKey(e.session, e.cycle));
    if (!rejudges(e.outcome)) {
      r.indeterminate.push(e.cycle);
      return;
    }
    if (!obs) {
      if (e.outcome === 'fail') this.failed(e.violations);
      r.unobserved++;
      return;
    }
    r.rechecked++;
    const v = keepOutsideFindings(recheckObservation(obs, this.model), e.violations);
    if (v.outcome === 'fail') r.recheckedFailures++;
    if (e.outcome === 'fail' || v.outcome === 'fail') this.failed([...e.violations, ...v.violations]);
    const journaled = { outcome: e.outcome, codes: codesOf(e.violations) };
    if (sameVerdict(journaled, v)) r.agreed++;
    else r.changed.push({ cycle: e.cycle, journaled, rechecked: v });
  }

  /** Count a cycle with these violations (journaled and found again): the system's failure, or the adapter's only. */
  private failed(vs: readonly { code: string }[]): void {
    if (vs.length > 0 && vs.every((v) => v.code === 'adapter-fault')) this.r.adapterFaults++;
    else this.r.systemFailures++;
  }

  /** What was found so far. */
  result(): RecheckResult {
    return { ...this.r, changed: [...this.r.changed], indeterminate: [...this.r.indeterminate] };
  }
}

/**
 * The exit code of a re-check: 2 when nothing could be re-checked (no observations recorded: an older journal), else
 * 1 when a verdict changed or the run has violations (journaled or found again), else 0.
 */
export function recheckExitCode(r: RecheckResult): number {
  // Jepsen's order: a violation (journaled or found again) outranks "nothing to re-check", which outranks a pass.
  // As the run's lattice (gates/verdict.ts verdictLevel): the system's failure, then an adapter fault, then the rest.
  if (r.changed.length > 0 || r.systemFailures > 0) return EXIT.fail;
  if (r.adapterFaults > 0) return EXIT.adapterFault;
  return r.rechecked === 0 ? EXIT.insufficient : EXIT.pass;
}
