// `soak watch <run-dir>`: a read-only live page for a running or finished soak, tailing its journal: cycles, failures,
// the downtime histogram and ECDF, the gates as they stand, an ETA (the figures `soak report` would write).
import type { Argv } from 'yargs';
import { EXIT } from '../core/errors.js';
import { visible } from '../core/visible.js';
import { resolveRunDir } from '../analysis/load-runs.js';
import { startLiveServer } from '../live/server.js';
import { JournalFollower } from '../watch/follow.js';
import { watchPage } from '../watch/page.js';
import { defineCommand } from './command.js';
import { portFlag } from './flags.js';
import { VERBS } from './verbs.js';
import { strictTiming, strictTimingOption } from './strict-timing.js';

interface WatchArgs {
  runDir: string;
  listen: string;
  port: number;
  strictTiming?: boolean;
}

export const watchCommand = defineCommand<WatchArgs>({
  command: VERBS.watch.command,
  describe: VERBS.watch.describe,
  builder: (y: Argv) =>
    strictTimingOption(y)
      .positional('run-dir', { type: 'string', describe: 'Run folder (e.g. runs/latest)' })
      .option('listen', {
        type: 'string',
        default: '127.0.0.1',
        describe: 'Address the page listens on (the token still guards every request)',
      })
      .option('port', {
        type: 'number',
        default: 0,
        describe: 'Port (default: a random free one)',
      }) as unknown as Argv<WatchArgs>,
  run: async (argv) => {
    const port = portFlag(argv.port);
    const strict = strictTiming(argv.strictTiming);
    const dir = resolveRunDir(argv.runDir);
    let stopNow: () => void = () => {};
    const stopped = new Promise<void>((resolve) => (stopNow = resolve));
    process.once('SIGINT', stopNow);
    process.once('SIGTERM', stopNow);
    const follower = new JournalFollower(dir, undefined, strict);
    await follower.start();
    const server = await startLiveServer({
      host: argv.listen,
      port,
      page: watchPage,
      snapshot: () => follower.snapshot(),
    });
    process.stdout.write(visible(`soak watch: ${dir}\nopen: ${server.url}\nCtrl-C ends it\n`));
    await stopped;
    follower.stop();
    await server.close();
    return EXIT.pass;
  },
});
