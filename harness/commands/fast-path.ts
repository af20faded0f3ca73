// Answers `soak --help`, `soak -h`, `soak --version`, `soak --capabilities [--json]` and a bare `soak` without loading
// yargs (most of the CLI's startup): the text yargs itself prints, kept equal to it by test/commands/fast-path.test.ts.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { InputError } from '../core/errors.js';
import { repoRoot } from '../core/repo-root.js';
import { capabilitiesText } from './capabilities.js';
import { HELP_TEXT } from './help-text.js';

/** The message of a command line that names no verb. */
export const NO_COMMAND = 'pass a command, e.g. "soak run"';

/** What can be printed instead of running a command. */
export interface Stdout {
  isTTY?: boolean;
  columns?: number;
}

/** The width `soak` wraps help to (the one home of the rule): a terminal's columns up to 110, else 100. */
export function helpWidth(out: Stdout): number {
  return Math.min(110, out.isTTY === true ? (out.columns ?? 100) : 100);
}

/** A usage error as the command line reports it: the message, then where to read the usage. */
export function usageError(message: string): InputError {
  return new InputError(`${message}\nRun "soak --help" for usage.`);
}

/** keepstate-soak's version, from its own package.json (yargs alone would guess it from the installing project's). */
export function soakVersion(): string {
  const pkg = JSON.parse(readFileSync(path.join(repoRoot(), 'package.json'), 'utf8')) as { version?: unknown };
  return typeof pkg.version === 'string' ? pkg.version : 'unknown';
}

/** An answer needing no parser: text for stdout (exit 0), or the usage error of a bare `soak`. */
export type FastAnswer = { kind: 'print'; text: string } | { kind: 'error'; error: InputError };

/** The answer to `args` (the words after `soak`) when it needs no parser, else undefined: yargs parses them. */
export function fastAnswer(args: readonly string[], width: number): FastAnswer | undefined {
  if (args.length === 0) return { kind: 'error', error: usageError(NO_COMMAND) };
  const json = args.includes('--json');
  if (args.includes('--capabilities') && args.every((a) => ['--capabilities', '--json', '--debug'].includes(a)))
    return { kind: 'print', text: capabilitiesText(soakVersion(), json) };
  if (args.length !== 1) return undefined;
  if (args[0] === '--version') return { kind: 'print', text: `${soakVersion()}\n` };
  const help = HELP_TEXT[width];
  if ((args[0] === '--help' || args[0] === '-h') && help !== undefined) return { kind: 'print', text: `${help}\n` };
  return undefined;
}
