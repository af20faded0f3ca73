// soak's yargs parser: the global options, help, version, wrapping and the verbs (cli.ts runs it; the fast-path test
// reads its help text).
import yargs, { type Argv, type CommandModule } from 'yargs';
import { EXIT } from '../core/errors.js';
import { exitEpilog } from '../core/exit-codes.js';
import type { CommandContext, SoakCommand } from './command.js';
import { NO_COMMAND, soakVersion, usageError } from './fast-path.js';
import { VERBS, type VerbName } from './verbs.js';

/** Where the exit code of the verb that ran lands. */
export interface ExitBox {
  code: number;
}

/** A verb yargs only lists (its name and description): it never runs, since only the verb named in full can match. */
export function listedVerb(v: VerbName): SoakCommand {
  return { ...VERBS[v], builder: (y: Argv) => y, run: () => EXIT.internal };
}

/** Adapt a verb to yargs; the exit code the verb returns lands in `exit.code`. */
function toYargs(c: SoakCommand, exit: ExitBox, context: CommandContext): CommandModule {
  if ('subcommands' in c) {
    return {
      command: c.command,
      describe: c.describe,
      builder: (y: Argv) => {
        for (const s of c.subcommands) y.command(toYargs(s, exit, context));
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

/** The parser of `soak <args>` over `commands`, wrapping help at `width`; usage errors are thrown as InputError. */
export function soakParser(
  args: readonly string[],
  commands: readonly SoakCommand[],
  width: number,
  exit: ExitBox,
  context: CommandContext,
): Argv {
  const cli = yargs([...args])
    .scriptName('soak')
    .usage('$0 <command> [options]\n\nKill-and-resume reliability harness for durable agent sessions.')
    .epilog(exitEpilog())
    .strict()
    .demandCommand(1, NO_COMMAND)
    .recommendCommands()
    .option('debug', {
      type: 'boolean',
      default: false,
      global: true,
      describe: 'On an error, print its stack trace and causes too (errors are one line otherwise)',
    })
    .option('capabilities', {
      type: 'boolean',
      global: false,
      describe:
        'Print what this CLI can do and exit (with --json: a JSON object, schemas/capabilities.schema.json; pipelines ask it)',
    })
    .help()
    .alias('h', 'help')
    .version(soakVersion())
    .wrap(width)
    .fail((msg: string, err: Error | undefined) => {
      // Throwing here stops yargs before any handler runs.
      throw err ?? usageError(msg);
    });
  for (const c of commands) cli.command(toYargs(c, exit, context));
  return cli;
}
