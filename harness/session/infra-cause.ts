// Whose failure a host's failed wait or death is: the machine's or the harness's (a host that hung, died with nothing to
// say, hit a full or failing disk or found the store locked: an indeterminate cause, Jepsen's :info, never a failure),
// the adapter's (an exec adapter that broke the protocol: violation adapter-fault), or else the session's (a violation).
import { diskErrno, EXIT, HostTimeoutError, SessionHungError } from '../core/errors.js';
import type { IndeterminateCause, Violation } from '../journal/events.js';
import type { HostHandle } from './host-handle.js';
import { diskFull } from './disk-full.js';

/** Longest a cause's message is journaled (one line). */
const MESSAGE_MAX = 300;

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

/** The `adapter-fault` violation of a host that died of its adapter's fault, or null. */
export function adapterFaultViolation(host: HostHandle | null): Violation | null {
  const message = host?.adapterFault ?? null;
  return message === null ? null : { code: 'adapter-fault', message: oneLine(message) };
}

function exitText(host: HostHandle): string {
  return `exited before it could be judged (${host.describeExit()})`;
}

/** `text` on one line of at most 300 characters (a journaled cause or violation message). */
export function oneLine(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > MESSAGE_MAX ? `${line.slice(0, MESSAGE_MAX - 1)}…` : line;
}
