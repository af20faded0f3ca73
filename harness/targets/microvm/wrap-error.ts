// How the microvm target reports a failed step: a TargetError with QEMU's diagnostics; store and config errors keep
// their class (and exit code).
import { SoakError, TargetError } from '../../core/errors.js';

/** `err` from step `what`, with `diag` (QEMU's stderr, the console's last lines) appended when there is any. */
export function wrapTargetError(what: string, err: unknown, diag: string): Error {
  if (err instanceof SoakError && !(err instanceof TargetError)) return err;
  if (err instanceof TargetError)
    return diag === '' ? err : new TargetError(`${err.message} [${diag}]`, { cause: err });
  return new TargetError(`microvm ${what} failed: ${(err as Error).message}${diag === '' ? '' : ` [${diag}]`}`, {
    cause: err,
  });
}
