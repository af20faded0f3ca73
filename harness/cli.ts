#!/usr/bin/env node
// The `soak` command line: parses arguments, runs one command, and is the only place that exits the process.
import yargs, { type Argv, type CommandModule } from 'yargs';
import { hideBin } from 'yargs/helpers';
import { DiskError, diskErrno, EXIT, InputError, SoakError } from './core/errors.js';
import type { CommandContext, SoakCommand } from './commands/command.js';
import { VERBS, type VerbName } from './commands/verbs.js';

const EPILOG = `Exit codes: 0 pass, 1 a gate failed or a check found a violation, 2 unknown / insufficient data, 3 bad input or usage, 4 internal error, 130 aborted (a second Ctrl-C or SIGTERM).`;

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

/** The verbs yargs is told about: the one named in full (its module loaded), every other as its name and description. */
async function verbsFor(args: readonly string[]): Promise<SoakCommand[]> {
  const named = verbIn(args);
  const loaded = named !== undefined ? await LOAD[named]() : undefined;
  return (Object.keys(VERBS) as VerbName[]).map(
    (v) =>
      (v === named ? loaded : undefined) ?? {
        ...VERBS[v],
        builder: (y: Argv) => y,
        run: () => EXIT.internal, // never runs: only the named verb can match
      },
  );
}

const context: CommandContext = { abort: (code) => process.exit(code) };

/** Adapt a verb to yargs; the exit code the verb returns lands in `exit.code`. */
function toYargs(c: SoakCommand, exit: { code: number }): CommandModule {
  if ('subcommands' in c) {
    return {
      command: c.command,
      describe: c.describe,
      builder: (y: Argv) => {
        for (const s of c.subcommands) y.command(toYargs(s, exit));
        return y.demandCommand(1);
      },
      handler: () => {},
    };
  }
  return {
    command: c.command,
    describe: c.describe,
    builder: (y: Argv) => c.builder(y),
    handler: async (argv) => {
      exit.code = await c.run(argv, context);
    },
  };
}

async function main(): Promise<number> {
  let commands: SoakCommand[];
  try {
    commands = await verbsFor(hideBin(process.argv));
  } catch (err) {
    return report(err);
  }
  const cli = yargs(hideBin(process.argv))
    .scriptName('soak')
    .usage('$0 <command> [options]\n\nKill-and-resume reliability harness for durable agent sessions.')
    .epilog(EPILOG)
    .strict()
    .demandCommand(1, 'pass a command, e.g. "soak run"')
    .recommendCommands()
    .option('debug', {
      type: 'boolean',
      default: false,
      global: true,
      describe: 'On an error, print its stack trace and causes too (errors are one line otherwise)',
    })
    .help()
    .alias('h', 'help')
    .version()
    .wrap(Math.min(110, process.stdout.isTTY ? process.stdout.columns : 100))
    .fail((msg: string, err: Error | undefined) => {
      // Throwing here stops yargs before any handler runs.
      throw err ?? new InputError(`${msg}\nRun "soak --help" for usage.`);
    });
  const exit: { code: number } = { code: EXIT.pass };
  for (const c of commands) cli.command(toYargs(c, exit));
  try {
    await cli.parseAsync();
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
  process.stderr.write(`soak: ${line.split('\n')[0]!}\n`);
  const rest = line.split('\n').slice(1).join('\n');
  if (rest) process.stderr.write(`${rest}\n`);
  if (debug)
    for (let e: unknown = shown; e instanceof Error; e = e.cause) process.stderr.write(`${e.stack ?? e.message}\n`);
  return shown instanceof SoakError ? shown.exitCode : EXIT.internal;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => process.exit(report(err)),
);
