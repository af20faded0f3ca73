// The named error classes and the exit codes they map to. Only cli.ts turns them into process exits.

/** The exit codes; what each means is in exit-codes.ts (README "Exit codes" and `soak --help` are made from it). */
export const EXIT = {
  pass: 0,
  /** A gate failed or a checker found a violation. */
  fail: 1,
  /** Unknown / insufficient data. */
  insufficient: 2,
  /** Bad input or usage: malformed file, unknown target, missing run folder. */
  badInput: 3,
  internal: 4,
  /** An exec target's adapter broke the protocol: crashed, answered garbage or a malformed reply, named a process it cannot prove is its own. */
  adapterFault: 5,
  /** Aborted by a second Ctrl-C or SIGTERM (128 + SIGINT, as shells report it): no run-end, no report. */
  aborted: 130,
} as const;

export class SoakError extends Error {
  readonly exitCode: number;
  constructor(message: string, exitCode: number, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.exitCode = exitCode;
  }
}

/** A config file (scenario, gate) is malformed or a field is invalid. */
export class ConfigError extends SoakError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, EXIT.badInput, options);
  }
}

/** Bad command-line usage or a missing/unreadable input (run folder, journal). */
export class InputError extends SoakError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, EXIT.badInput, options);
  }
}

/** Stored data failed verification (corrupt chunk, torn manifest, corrupt journal line). */
export class IntegrityError extends SoakError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, EXIT.fail, options);
  }
}

/** A bad line in a journal; `problem` follows "journal <file> line <n>", so a reader of part of a file can renumber it. */
export class JournalLineError extends IntegrityError {
  constructor(
    readonly file: string,
    readonly lineNo: number,
    readonly problem: string,
  ) {
    super(`journal ${file} line ${lineNo}${problem}`);
  }
}

/** A target could not do what was asked (QEMU failed to start, agent died at boot). */
export class TargetError extends SoakError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, EXIT.internal, options);
  }
}

/** What every AdapterError's message starts with (a run-end reason, a host's error relayed to the runner). */
export const ADAPTER_FAULT_PREFIX = 'adapter fault: ';

/**
 * An exec target's adapter broke the protocol (failed to start, exited, a line that is not JSON, an invalid message or
 * reply, another protocol version, a kill list naming a process it cannot prove is its own, no answer to describe or
 * destroy): the adapter's fault, not the runtime's and not the harness's. Not for an adapter's `error` reply (its
 * runtime failed: a TargetError). The message starts with ADAPTER_FAULT_PREFIX and names the adapter.
 */
export class AdapterError extends SoakError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(
      message.startsWith(ADAPTER_FAULT_PREFIX) ? message : `${ADAPTER_FAULT_PREFIX}${message}`,
      EXIT.adapterFault,
      options,
    );
  }
}

/** A host of the run did not send what the runner waited for in time (hung, or stopped with SIGSTOP). */
export class HostTimeoutError extends SoakError {
  constructor(message: string) {
    super(message, EXIT.internal);
  }
}

/**
 * A bounded wait on a session ran out while its host was demonstrably alive (it answered after the bound): the session
 * under test is stuck, not the harness. `code` is the violation the cycle fails with (`session-hung`: no first full
 * heartbeat or other message from the session; `checkpoint-stuck`: a checkpoint over its bound).
 */
export class SessionHungError extends SoakError {
  constructor(
    message: string,
    readonly code: 'session-hung' | 'checkpoint-stuck' = 'session-hung',
  ) {
    super(message, EXIT.fail);
  }
}

/** The errno codes that mean the disk, not the code, failed. */
export type DiskErrno = 'ENOSPC' | 'EIO';

/** The disk under `path` is full (ENOSPC) or failing (EIO): one line naming both; exit 4 (the machine, not a gate). */
export class DiskError extends SoakError {
  constructor(
    readonly path: string,
    readonly errno: DiskErrno,
    options?: { cause?: unknown },
  ) {
    super(
      `${errno === 'ENOSPC' ? 'no space left on device' : 'i/o error'} (${errno}) writing ${path}${errno === 'ENOSPC' ? ': free some space or pass another --out' : ''}`,
      EXIT.internal,
      options,
    );
  }
}

/** ENOSPC or EIO when `err` (or an error in its cause chain, or its message) says so; else null. */
export function diskErrno(err: unknown): DiskErrno | null {
  for (let e = err, depth = 0; e !== undefined && e !== null && depth < 5; depth++) {
    const code = (e as { code?: unknown }).code;
    if (code === 'ENOSPC' || code === 'EIO') return code;
    const message = e instanceof Error ? e.message : typeof e === 'string' ? e : '';
    const m = /\b(ENOSPC|EIO)\b/.exec(message);
    if (m) return m[1] as DiskErrno;
    e = e instanceof Error ? e.cause : undefined;
  }
  return null;
}

/** Below this many free bytes a disk counts as full (a write of one chunk or journal line would fail). */
export const DISK_FULL_BYTES = 256 * 1024;
