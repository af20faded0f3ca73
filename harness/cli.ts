#!/usr/bin/env node
// The `soak` command line: parses arguments, runs one command, and is the only place that exits the process.
import { DiskError, diskErrno, EXIT, SoakError } from './core/errors.js';
import { visible } from './core/visible.js';
import type { CommandContext, SoakCommand } from './commands/command.js';
import { fastAnswer, helpWidth } from './commands/fast-path.js';
import { VERBS, type VerbName } from './commands/verbs.js';

/** Each verb's module, imported only when that verb runs (so `soak --help` loads no verb, nor vega). */
const LOAD: Record<VerbName, () => Promise<SoakCommand>> = {
  run: async () => (await import('./commands/run.js')).runCommand,
  report: async () => (await import('./commands/report.js')).reportCommand,
  gates: async () => (await import('./commands/gates.js')).gatesCommand,
  check: async () => (await import('./commands/check.js')).checkCommand,
  compare: async () => (await import('./commands/compare.js')).compareCommand,
  merge: async () => (await import('./commands/merge.js')).mergeCommand,
  store: async () => (await import('./commands/store.js')).storeCommand,
  target: async () => (await import('./commands/target.js')).targetCommand,
  image: async () => (await import('./commands/image.js')).imageCommand,
  demo: async () => (await import('./commands/demo.js')).demoCommand,
  watch: async () => (await import('./commands/watch.js')).watchCommand,
};

/** The verb the arguments name: the first word that is not an option (the only global options are flags). */
function verbIn(args: readonly string[]): VerbName | undefined {
  const word = args.find((a) => !a.startsWith('-'));
  return word !== undefined && Object.hasOwn(VERBS, word) ? (word as VerbName) : undefined;
}

const context: CommandContext = { abort: (code) => process.exit(code) };

async function main(): Promise<number> {
  const args = process.argv.slice(2);
  const width = helpWidth(process.stdout);
  // `soak --help`, `--version` and a bare `soak` are answered without yargs (commands/fast-path.ts)
  const fast = fastAnswer(args, width);
  if (fast?.kind === 'print') {
    process.stdout.write(fast.text);
    return EXIT.pass;
  }
  if (fast?.kind === 'error') return report(fast.error);
  const exit = { code: EXIT.pass as number };
  try {
    const { listedVerb, soakParser } = await import('./commands/parser.js');
    const named = verbIn(args);
    const loaded = named !== undefined ? await LOAD[named]() : undefined;
    // the verb named in full (its module loaded), every other as its name and description
    const commands = (Object.keys(VERBS) as VerbName[]).map((v) => (v === named ? loaded : undefined) ?? listedVerb(v));
    await soakParser(args, commands, width, exit, context).parseAsync();
  } catch (err) {
    return report(err);
  }
  return exit.code;
}

/** The file a Node fs error names, if any. */
function pathOf(err: unknown): string | null {
  const p = (err as { path?: unknown } | null)?.path;
  return typeof p === 'string' ? p : null;
}

/** Print `err` as one line (with --debug: its stack and causes too); its exit code. */
function report(err: unknown): number {
  const debug = process.argv.includes('--debug');
  const errno = err instanceof SoakError ? null : diskErrno(err);
  const shown = errno !== null ? new DiskError(pathOf(err) ?? 'the output folder', errno, { cause: err }) : err;
  const line =
    shown instanceof SoakError
      ? shown.message
      : `internal error: ${shown instanceof Error ? shown.message : String(shown)}${debug ? '' : ' (run again with --debug for the stack trace)'}`;
  // Messages carry what others wrote (an adapter's error, a scenario's name, a file name): controls made visible.
  process.stderr.write(visible(`soak: ${line.split('\n')[0]!}\n`));
  const rest = line.split('\n').slice(1).join('\n');
  if (rest) process.stderr.write(visible(`${rest}\n`));
  if (debug)
    for (let e: unknown = shown; e instanceof Error; e = e.cause)
      process.stderr.write(visible(`${e.stack ?? e.message}\n`));
  return shown instanceof SoakError ? shown.exitCode : EXIT.internal;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => process.exit(report(err)),
);
