// Telling the machine's failures from the system's: a host that hung, died with nothing to say, hit a full or failing
// disk or found the store locked makes a cycle indeterminate (Jepsen's :info) with a cause, never a failure.
import { diskErrno, EXIT, HostTimeoutError, SessionHungError } from '../core/errors.js';
import type { EventInput, IndeterminateCause, KillPhase, Violation } from '../journal/events.js';
import type { HostHandle } from '../session/host-handle.js';
import { CHECKPOINT_TIMEOUT_MS, type Scenario } from '../scenario/scenario.js';
import { diskFull } from '../session/disk-full.js';

/** Longest a cause's message is journaled (one line). */
const MESSAGE_MAX = 300;

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

/**
 * Why waiting on `host` failed with `err`, when the cause is the harness or the machine; null when the host reported
 * a failure of its own (the target failed to restore), an adapter fault, or its session was stuck while the host
 * answered: a claim about the system under test (sessionFailure).
 */
export function causeOf(err: unknown, host: HostHandle | null, runDir?: string): IndeterminateCause | null {
  // An adapter fault is the adapter's, whatever its text says (an adapter printing "ENOSPC" is no full disk)
  if (host?.adapterFault != null) return null;
  const what = oneLine(err instanceof Error ? err.message : String(err));
  if (err instanceof SessionHungError) return null;
  if (err instanceof HostTimeoutError) return { code: 'host-hung', message: what };
  const hostSaid = host?.errorMessage ?? null;
  const errno = diskErrno(host?.errorCode ?? null) ?? diskErrno(hostSaid) ?? diskErrno(err);
  const detail = oneLine(hostSaid ?? what);
  if (errno === 'ENOSPC') return { code: 'enospc', message: detail };
  if (errno === 'EIO') return { code: 'eio', message: detail };
  if (host?.exited?.exitCode === EXIT.badInput && /\block\b/i.test(hostSaid ?? ''))
    return { code: 'lock-conflict', message: detail };
  if (host?.exited && hostSaid === null) {
    // A host whose target died writing to a full disk may exit with nothing to say: the disk says it.
    if (runDir !== undefined && diskFull(runDir))
      return { code: 'enospc', message: `host ${host.pid} ${exitText(host)}; the disk of ${runDir} is full` };
    return { code: 'host-exited', message: `host ${host.pid} ${exitText(host)}` };
  }
  return null;
}

/** The cause when `host` is already gone before the runner acted on it (null: it is running, or failed on its own). */
export function goneCause(host: HostHandle, runDir?: string): IndeterminateCause | null {
  return host.exited ? causeOf(new Error(`host ${host.pid} exited before the kill`), host, runDir) : null;
}

/**
 * The violation of a session that failed a wait for a reason causeOf does not excuse: stuck while its host answered
 * (`session-hung`, `checkpoint-stuck`), else `no-resume` with what `failed` (e.g. "session did not resume").
 */
export function sessionFailure(err: unknown, failed = 'session did not resume'): Violation {
  const message = err instanceof Error ? err.message : String(err);
  if (err instanceof SessionHungError) return { code: err.code, message: oneLine(message) };
  return { code: 'no-resume', message: `${failed}: ${message}` };
}

function exitText(host: HostHandle): string {
  return `exited before it could be judged (${host.describeExit()})`;
}

/** `text` on one line of at most 300 characters (a journaled cause or violation message). */
export function oneLine(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > MESSAGE_MAX ? `${line.slice(0, MESSAGE_MAX - 1)}…` : line;
}

/** What a judged cycle (one that reached the checker or failed to resume) observed. */
export interface JudgedCycle {
  cycle: number;
  phase: KillPhase;
  observedPhase: KillPhase;
  downtimeMs: number | null;
  killStep: number;
  restoredSeq: number | null;
  restoredStep: number | null;
  restoreKills: number;
  violations: Violation[];
}

/**
 * The cycle outcome event of a judged cycle: ok when the checker found nothing, work lost since the restored step.
 * With `infraCause` (the host failed on an injected ENOSPC or EIO) a clean cycle is indeterminate with that cause, no
 * downtime: the machine failed, not the system; a violation still makes it fail.
 */
export function judgedCycleEvent(
  c: JudgedCycle,
  infraCause: IndeterminateCause | null = null,
): Extract<EventInput, { type: 'cycle' }> {
  if (infraCause && c.violations.length === 0)
    return { ...judgedCycleEvent(c), outcome: 'indeterminate', downtimeMs: null, cause: infraCause };
  return {
    type: 'cycle',
    cycle: c.cycle,
    phase: c.phase,
    observedPhase: c.observedPhase,
    outcome: c.violations.length === 0 ? 'ok' : 'fail',
    downtimeMs: c.downtimeMs,
    killStep: c.killStep,
    restoredSeq: c.restoredSeq,
    restoredStep: c.restoredStep,
    lostSteps: c.restoredStep === null ? null : c.killStep - c.restoredStep,
    restoreKills: c.restoreKills,
    violations: c.violations,
    cause: null,
  };
}
