// `soak demo`: one supervised session and a live page on which a person watches it, kills it (kill -9 from a
// terminal, or the page's button) and sees it come back verified; journaled as a run folder `soak report` can read.
import path from 'node:path';
import type { Argv } from 'yargs';
import { EXIT } from '../core/errors.js';
import { createLogger } from '../core/logger.js';
import { visible } from '../core/visible.js';
import { DemoSession } from '../demo/session.js';
import { demoPage } from '../demo/page.js';
import { startLiveServer } from '../live/server.js';
import { loadScenario } from '../scenario/scenario.js';
import { assertTargetName, validateTarget } from '../targets/registry.js';
import { defineCommand } from './command.js';
import { portFlag, wholeFlag } from './flags.js';
import { demoGrid } from './demo-grid.js';
import { MAX_DEMO_SESSIONS } from '../demo/grid.js';
import { VERBS } from './verbs.js';

interface DemoArgs {
  scenario?: string;
  sessions: number;
  target?: string;
  out: string;
  listen: string;
  port: number;
  verbose: boolean;
}

export const demoCommand = defineCommand<DemoArgs>({
  command: VERBS.demo.command,
  describe: VERBS.demo.describe,
  builder: (y: Argv) =>
    y
      .option('scenario', {
        type: 'string',
        describe: 'Scenario (its target and checkpoint cadence; default "default")',
      })
      .option('target', { type: 'string', describe: 'Override the scenario target (process | microvm)' })
      .option('sessions', {
        type: 'number',
        default: 1,
        describe: `Sessions at once, a card each, and a button that kills the whole host (1-${MAX_DEMO_SESSIONS}, process target)`,
      })
      .option('out', { type: 'string', default: 'runs', describe: 'Folder that receives the run folder' })
      .option('listen', {
        type: 'string',
        default: '127.0.0.1',
        describe:
          'Address the page listens on (anything but loopback exposes it: the token still guards every request)',
      })
      .option('port', { type: 'number', default: 0, describe: 'Port (default: a random free one)' })
      .option('verbose', { type: 'boolean', default: false, describe: 'Log on stderr' }),
  run: async (argv) => {
    const port = portFlag(argv.port); // before the session boots
    const sessions = wholeFlag('--sessions', argv.sessions, 1, MAX_DEMO_SESSIONS);
    const { scenario, file } = loadScenario(argv.scenario ?? 'default', { target: argv.target, sessions });
    if (argv.target !== undefined) assertTargetName(argv.target, '--target');
    await validateTarget(scenario.target, scenario.targetOptions, file);
    if (sessions > 1) return demoGrid(argv, scenario, port);
    // Ctrl-C or SIGTERM ends the demo (registered first: one that comes while the session boots still ends it cleanly)
    let stopNow: () => void = () => {};
    const stopped = new Promise<void>((resolve) => (stopNow = resolve));
    process.once('SIGINT', stopNow);
    process.once('SIGTERM', stopNow);
    // The page listens first: an address it cannot have fails before a run folder, a store lock or a session exists.
    let session: DemoSession | null = null;
    const server = await startLiveServer({
      host: argv.listen,
      port,
      page: demoPage,
      snapshot: () => session?.state.snapshot() ?? null,
      onKill: () => session?.killNow() ?? false,
      log: createLogger(null, argv.verbose ? 'debug' : 'warn'),
    });
    const demo = await DemoSession.start({
      scenario,
      runsDir: path.resolve(argv.out),
      logLevel: argv.verbose ? 'debug' : 'warn',
    }).catch(async (err: unknown) => {
      await server.close();
      throw err;
    });
    session = demo;
    process.stdout.write(visible(`soak demo: ${scenario.target} session, run folder ${demo.paths.dir}\n`));
    process.stdout.write(`open: ${server.url}\n`);
    await Promise.race([demo.settled(), stopped]);
    const pid = demo.state.pid;
    if (pid !== null)
      process.stdout.write(`kill it: kill -9 -- -${pid}   (the page shows the PID after each resume)\n`);
    process.stdout.write('Ctrl-C ends the demo (journaled as run-end); then: soak report <run folder>\n');
    await stopped;
    await demo.stop();
    await server.close();
    const c = demo.state.counts;
    process.stdout.write(
      visible(
        `soak demo: ${c.interruptions} interruptions, ${c.resumed} resumed, ${c.failed} not; report: soak report ${demo.paths.dir}\n`,
      ),
    );
    return c.failed > 0 ? EXIT.fail : EXIT.pass;
  },
});
