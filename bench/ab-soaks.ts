// The frame bench/effects-ledger.ts and bench/probe-cost.ts share: one scenario in two arms (off, on) run by the real
// CLI in one bench run, interleaved (off, on, on, off, ...) so load drifts hit both alike; each soak's summary.json,
// each round's paired ratio on / off (its two soaks ran back to back, so a load change between rounds cancels), and
// journal fields pooled over one arm's run folders.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse, stringify } from 'yaml';
import { benchArgs } from './args.js';
import { msSince } from './measure.js';

export type Arm = 'off' | 'on';

/** What one bench compares. */
export interface AbSetup {
  /** The bench's name (--help, error lines). */
  name: string;
  /** One line for --help. */
  summary: string;
  /** What the on arm adds, as in "one without <it>, one with" (--help). */
  adds: string;
  defaultRounds: number;
  /** The scenario file under scenarios/ both arms start from. */
  scenario: string;
  /** Scenario and scratch-folder names: `<prefix>-<arm>`. */
  prefix: string;
  /** The arm's scenario from the base one (boot samples are turned off for both afterwards). */
  arm(base: Record<string, unknown>, arm: Arm): Record<string, unknown>;
}

/** The bench's options and scratch folder, and how it runs and reads its soaks. */
export function abBench(setup: AbSetup) {
  const { values } = benchArgs(
    setup.name,
    setup.summary,
    {
      cycles: 'kill-and-resume cycles per soak',
      rounds: `pairs of soaks (one without ${setup.adds}, one with; the order alternates)`,
      keep: 'keep the scratch folder (run folders and reports) and print its path',
    },
    {
      options: {
        cycles: { type: 'string', default: '20' },
        rounds: { type: 'string', default: String(setup.defaultRounds) },
        keep: { type: 'boolean', default: false },
      },
    },
  );
  const cycles = Number(values.cycles);
  const rounds = Number(values.rounds);
  for (const [name, v] of [
    ['cycles', cycles],
    ['rounds', rounds],
  ] as const) {
    if (!Number.isInteger(v) || v < 1) fail(`--${name} must be a positive integer (see --help)`, 3);
  }
  function fail(message: string, code: number): never {
    process.stderr.write(`${setup.name}: ${message}\n`);
    process.exit(code);
  }

  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
  const cli = path.join(root, 'dist', 'harness', 'cli.js');
  const tmp = mkdtempSync(path.join(os.tmpdir(), `soak-${setup.prefix}-bench-`));
  // the same scenario twice: boot samples off (not what is measured), the arm's change in each
  const base = parse(readFileSync(path.join(root, 'scenarios', setup.scenario), 'utf8')) as Record<string, unknown>;
  const scenarios = {} as Record<Arm, string>;
  for (const arm of ['off', 'on'] as const) {
    scenarios[arm] = path.join(tmp, `${setup.prefix}-${arm}.yaml`);
    const s = { ...setup.arm(base, arm), name: `${setup.prefix}-${arm}`, bootSamples: 0 };
    writeFileSync(scenarios[arm], stringify(s));
  }
  const runsOf = (arm: Arm): string => path.join(tmp, `runs-${arm}`);

  return {
    cycles,
    rounds,
    fail,
    runsOf,
    /** The load average now (1, 5, 15 min). */
    load: (): string => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' '),

    /** Soak number `i` of `arm` through the CLI: its summary.json and wall seconds (exit 4 if it did not end 0-2). */
    soak(arm: Arm, i: number): { summary: unknown; seconds: number } {
      const reports = path.join(tmp, `reports-${i}`);
      mkdirSync(reports);
      const args = [cli, 'run', '--scenario', scenarios[arm], '--cycles', String(cycles), '--out', runsOf(arm)];
      const t0 = process.hrtime.bigint();
      const r = spawnSync(process.execPath, [...args, '--report-dir', reports], {
        encoding: 'utf8',
        timeout: 20 * 60_000,
      });
      if (r.status === null || r.status > 2)
        fail(`soak ${arm} ended with ${r.status ?? r.signal}: ${r.stderr.trim()}`, 4);
      const [dir] = readdirSync(reports);
      const summary: unknown = JSON.parse(readFileSync(path.join(reports, dir!, 'summary.json'), 'utf8'));
      return { summary, seconds: msSince(t0) / 1000 };
    },

    /** `rounds` pairs of soaks, the order alternating; each printed as it ends. */
    interleave<S extends { arm: Arm }>(run: (arm: Arm, i: number) => S, print: (s: S) => void): S[] {
      const runs: S[] = [];
      for (let round = 0; round < rounds; round++) {
        const order: Arm[] = round % 2 === 0 ? ['off', 'on'] : ['on', 'off'];
        for (const arm of order) {
          const s = run(arm, runs.length);
          runs.push(s);
          print(s);
        }
      }
      return runs;
    },

    /** Each round's ratio on / off of `figure`. */
    paired<S extends { arm: Arm }>(runs: readonly S[], figure: (s: S) => number): number[] {
      return Array.from({ length: rounds }, (_, i) => {
        const pair = runs.slice(2 * i, 2 * i + 2);
        return figure(pair.find((r) => r.arm === 'on')!) / figure(pair.find((r) => r.arm === 'off')!);
      });
    },

    /** One journal event field of one arm's soaks, pooled over every run folder (numbers only). */
    pooled(arm: Arm, type: string, field: string): number[] {
      const out = runsOf(arm);
      return readdirSync(out)
        .filter((d) => d !== 'latest')
        .flatMap((d) => readFileSync(path.join(out, d, 'journal.ndjson'), 'utf8').split('\n'))
        .filter((l) => l.includes(`"type":"${type}"`))
        .map((l) => (JSON.parse(l) as Record<string, unknown>)[field])
        .filter((v): v is number => typeof v === 'number');
    },

    /** Print the scratch folder (--keep) or remove it. */
    finish(): void {
      if (values.keep) process.stdout.write(`kept ${tmp}\n`);
      else rmSync(tmp, { recursive: true, force: true });
    },
  };
}
