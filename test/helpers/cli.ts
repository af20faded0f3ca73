// Running the built `soak` CLI from a test: in a given folder, never rejecting, with no terminal and CI-style output.
import { execaNode, type Result } from 'execa';
import { cliPath } from './paths.js';

/** A `soak ...args` runner whose working folder is read at each call (tests make it in beforeAll). */
export function soakIn(cwd: () => string, timeoutMs: number): (...args: string[]) => Promise<Result> {
  return (...args) =>
    execaNode(cliPath, args, { cwd: cwd(), reject: false, timeout: timeoutMs, stdin: 'ignore', env: { CI: '1' } });
}

/** Exit code, stdout and stderr of a finished CLI run, for assertion messages. */
export function describeResult(r: Result): string {
  return `exit ${r.exitCode}\n--- stdout\n${String(r.stdout)}\n--- stderr\n${String(r.stderr)}`;
}
