#!/usr/bin/env node
// The `soak` command line: parses arguments, runs one command, and is the only place that exits the process.
import yargs, { type Argv, type CommandModule } from 'yargs';
import { hideBin } from 'yargs/helpers';
import { EXIT, InputError, SoakError } from './core/errors.js';
import { checkCommand } from './commands/check.js';
import type { CommandContext, SoakCommand } from './commands/command.js';
import { compareCommand } from './commands/compare.js';
import { gatesCommand } from './commands/gates.js';
import { mergeCommand } from './commands/merge.js';
import { reportCommand } from './commands/report.js';
import { runCommand } from './commands/run.js';
import { storeCommand } from './commands/store.js';

const EPILOG = `Exit codes: 0 pass, 1 a gate failed or a check found a violation, 2 unknown / insufficient data, 3 bad input or usage, 4 internal error.`;

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
  const commands: SoakCommand[] = [
    runCommand,
    reportCommand,
    gatesCommand,
    checkCommand,
    compareCommand,
    mergeCommand,
    storeCommand,
  ];
  try {
    const { imageCommand } = await import('./commands/image.js');
    commands.push(imageCommand);
  } catch {
    // the micro-VM image builder is optional
  }
  const cli = yargs(hideBin(process.argv))
    .scriptName('soak')
    .usage('$0 <command> [options]\n\nKill-and-resume reliability harness for durable agent sessions.')
    .epilog(EPILOG)
    .strict()
    .demandCommand(1, 'pass a command, e.g. "soak run"')
    .recommendCommands()
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

function report(err: unknown): number {
  if (err instanceof SoakError) {
    process.stderr.write(`soak: ${err.message}\n`);
    return err.exitCode;
  }
  process.stderr.write(`soak: internal error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  return EXIT.internal;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => process.exit(report(err)),
);
