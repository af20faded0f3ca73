// The named error classes and the exit codes they map to. Only cli.ts turns them into process exits.

/** Documented exit codes (README "Exit codes"). */
export const EXIT = {
  pass: 0,
  /** A gate failed or a checker found a violation. */
  fail: 1,
  /** Unknown / insufficient data. */
  insufficient: 2,
  /** Bad input or usage: malformed file, unknown target, missing run folder. */
  badInput: 3,
  internal: 4,
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
