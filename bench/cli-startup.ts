// `npm run bench cli-startup`: whole-process wall time of `soak --help`, `soak --version` (both answered without yargs)
// and `soak run --help` (yargs and the run verb's module), beside a bare `node -e 0` on the same machine at the same
// time, median of N runs each, interleaved so load swings hit all alike; prints the load average and the ratio to the floor.
import { spawnSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchArgs } from './args.js';

const cli = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'harness', 'cli.js');
const { values } = benchArgs(
  'cli-startup',
  'Whole-process wall time of `soak --help`, `--version` and `run --help` beside a bare `node -e 0`, medians, load average.',
  { runs: 'runs of each command, interleaved' },
  { options: { runs: { type: 'string', default: process.env['BENCH_RUNS'] ?? '9' } } },
);
const runs = Number(values.runs);

/** Wall ms of one `node ...args` run, from spawn to exit. */
function once(args: readonly string[]): number {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(process.execPath, [...args], { stdio: ['ignore', 'ignore', 'inherit'] });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.status !== 0) throw new Error(`node ${args.join(' ')} exited ${r.status}`);
  return ms;
}

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

const cases: Array<[string, string[]]> = [
  ['node -e 0 (floor)', ['-e', '0']],
  ['soak --help', [cli, '--help']],
  ['soak --version', [cli, '--version']],
  ['soak run --help', [cli, 'run', '--help']],
];
const times = new Map<string, number[]>(cases.map(([name]) => [name, []]));
const loadBefore = os.loadavg()[0]!;
for (let i = 0; i < runs; i++) for (const [name, args] of cases) times.get(name)!.push(once(args));
const loadAfter = os.loadavg()[0]!;
process.stdout.write(
  `${os.cpus().length} cores, load average ${loadBefore.toFixed(2)} before, ${loadAfter.toFixed(2)} after; median of ${runs} runs\n`,
);
const floor = median(times.get(cases[0]![0])!);
for (const [name] of cases) {
  const m = median(times.get(name)!);
  process.stdout.write(
    `${name.padEnd(20)} ${m.toFixed(0).padStart(6)} ms median (min ${Math.min(...times.get(name)!).toFixed(0)} ms), ${(m - floor).toFixed(0)} ms over the floor, ${(m / floor).toFixed(2)}x\n`,
  );
}
