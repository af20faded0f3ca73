// The shape of one `soak` verb: yargs metadata plus a handler that returns its exit code (cli.ts adapts and exits).
import type { Argv } from 'yargs';

/** What cli.ts hands a command: the one way to end the process early (e.g. a second Ctrl-C). */
export interface CommandContext {
  /** Exit now with `code`; only for an abort the user asked for (cli.ts is the only place that exits). */
  abort: (code: number) => never;
}

/** A verb with options, typed by its parsed arguments `A`; `run` returns the exit code (EXIT) or throws a SoakError. */
export interface LeafCommand<A> {
  command: string;
  describe: string;
  builder: (y: Argv) => Argv<A>;
  run: (argv: A, ctx: CommandContext) => number | Promise<number>;
}

/** A verb that only groups sub-verbs (`soak store stats|verify|gc`). */
export interface GroupCommand {
  command: string;
  describe: string;
  subcommands: readonly SoakCommand[];
}

/** Any verb as cli.ts holds it: a leaf's argument type is erased (its builder parsed them) or a group. */
export type SoakCommand = LeafCommand<unknown> | GroupCommand;

/** Erase a leaf's argument type so verbs of different arguments share one list; its builder defines `A`. */
export function defineCommand<A>(c: LeafCommand<A>): SoakCommand {
  return {
    command: c.command,
    describe: c.describe,
    builder: c.builder,
    run: (argv, ctx) => c.run(argv as A, ctx),
  };
}
