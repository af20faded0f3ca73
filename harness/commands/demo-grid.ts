// `soak demo --sessions N` (N > 1): N sessions at once and the grid page, with a button per session and one that
// kills the whole host; journaled as one run folder of N sessions that `soak report` can read.
import path from 'node:path';
import { EXIT } from '../core/errors.js';
import { createLogger } from '../core/logger.js';
import { visible } from '../core/visible.js';
import { DemoGrid } from '../demo/grid.js';
import { gridPage } from '../demo/grid-page.js';
import { hostCrashText } from '../demo/host-crash.js';
import { startLiveServer } from '../live/server.js';
import type { Scenario } from '../scenario/scenario.js';

/** The flags of `soak demo` the grid uses. */
interface GridArgs {
  out: string;
  listen: string;
  verbose: boolean;
}

/** Run the grid demo until Ctrl-C or SIGTERM; the exit code (1 when an interruption was not resumed verified). */
export async function demoGrid(argv: GridArgs, scenario: Scenario, port: number): Promise<number> {
  let stopNow: () => void = () => {};
  const stopped = new Promise<void>((resolve) => (stopNow = resolve));
  process.once('SIGINT', stopNow);
  process.once('SIGTERM', stopNow);
  let grid: DemoGrid | null = null;
  const server = await startLiveServer({
    host: argv.listen,
    port,
    page: gridPage,
    snapshot: () => grid?.snapshot() ?? null,
    onKill: (query) => grid?.killSession(query.get('session')) ?? false,
    onKillHost: () => grid?.killHost() ?? false,
    log: createLogger(null, argv.verbose ? 'debug' : 'warn'),
  });
  const started = await DemoGrid.start({
    scenario,
    runsDir: path.resolve(argv.out),
    logLevel: argv.verbose ? 'debug' : 'warn',
    onHostCrash: (v) => process.stdout.write(`soak demo: kill of the whole host #${v.number}: ${hostCrashText(v)}\n`),
  }).catch(async (err: unknown) => {
    await server.close();
    throw err;
  });
  grid = started;
  const n = scenario.sessions;
  process.stdout.write(visible(`soak demo: ${n} ${scenario.target} sessions, run folder ${started.paths.dir}\n`));
  process.stdout.write(`open: ${server.url}\n`);
  await Promise.race([started.settled(), stopped]);
  process.stdout.write('kill one: the command on its card; kill them all: the page\'s "kill the whole host" button\n');
  process.stdout.write('Ctrl-C ends the demo (journaled as run-end); then: soak report <run folder>\n');
  await stopped;
  const c = await started.stop();
  await server.close();
  process.stdout.write(
    visible(
      `soak demo: ${n} sessions, ${c.interruptions} interruptions, ${c.resumed} resumed, ${c.failed} not; report: soak report ${started.paths.dir}\n`,
    ),
  );
  return c.failed > 0 ? EXIT.fail : EXIT.pass;
}
