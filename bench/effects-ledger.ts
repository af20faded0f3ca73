// The effect ledger's cost on downtime (issue 34: "the ledger adds no more than 5% to downtime p50"): the same short
// process-target soak (scenarios/effects.yaml) with the effects field removed and with it, run by the real CLI in one
// bench run, interleaved (off, on, on, off, ...) so load drifts hit both alike. Prints each run's downtime p50 and
// load average, the medians of those p50s per arm and their ratio on / off, the median of each round's paired ratio
// (its two soaks ran back to back, so a load change between rounds cancels), and the load average before and after.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse, stringify } from 'yaml';
import { benchArgs } from './args.js';
import { median, msSince } from './measure.js';
import { timelineSummary } from './restore-timeline.js';

const { values } = benchArgs(
  'effects-ledger',
  'Downtime p50 of the same process-target soak without and with effects (the ledger), interleaved in one run.',
  {
    cycles: 'kill-and-resume cycles per soak',
    rounds: 'pairs of soaks (one without effects, one with; the order alternates)',
    keep: 'keep the scratch folder (run folders and reports) and print its path',
  },
  {
    options: {
      cycles: { type: 'string', default: '20' },
      rounds: { type: 'string', default: '8' },
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
  if (!Number.isInteger(v) || v < 1) {
    process.stderr.write(`effects-ledger: --${name} must be a positive integer (see --help)\n`);
    process.exit(3);
  }
}

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const cli = path.join(root, 'dist', 'harness', 'cli.js');
const load = (): string => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');

type Arm = 'off' | 'on';
const tmp = mkdtempSync(path.join(os.tmpdir(), 'soak-ledger-bench-'));
// the same scenario twice: boot samples off (not what is measured), effects removed in one of them
const base = parse(readFileSync(path.join(root, 'scenarios', 'effects.yaml'), 'utf8')) as Record<string, unknown>;
const scenarioOf = (arm: Arm): string => {
  const { effects, ...rest } = base;
  const file = path.join(tmp, `ledger-${arm}.yaml`);
  const s = { ...rest, name: `ledger-${arm}`, bootSamples: 0, ...(arm === 'on' ? { effects } : {}) };
  writeFileSync(file, stringify(s));
  return file;
};
const scenarios: Record<Arm, string> = { off: scenarioOf('off'), on: scenarioOf('on') };

interface Soak {
  arm: Arm;
  p50: number;
  n: number;
  load1p50: number | null;
  seconds: number;
}

/** One soak through the CLI; its summary.json's downtime and machine load. */
function soak(arm: Arm, i: number): Soak {
  const reports = path.join(tmp, `reports-${i}`);
  mkdirSync(reports);
  const out = path.join(tmp, `runs-${arm}`);
  const args = [cli, 'run', '--scenario', scenarios[arm], '--cycles', String(cycles), '--out', out];
  const t0 = process.hrtime.bigint();
  const r = spawnSync(process.execPath, [...args, '--report-dir', reports], { encoding: 'utf8', timeout: 20 * 60_000 });
  if (r.status === null || r.status > 2) {
    process.stderr.write(`effects-ledger: soak ${arm} ended with ${r.status ?? r.signal}: ${r.stderr.trim()}\n`);
    process.exit(4);
  }
  const [dir] = readdirSync(reports);
  const summary = JSON.parse(readFileSync(path.join(reports, dir!, 'summary.json'), 'utf8')) as {
    downtimeMs: { n: number; p50: number | null };
    machineLoad?: { load1: { p50: number } };
    effects?: unknown;
  };
  if ((arm === 'on') !== (summary.effects !== undefined)) {
    process.stderr.write(`effects-ledger: the ${arm} soak's summary ${arm === 'on' ? 'lacks' : 'has'} effects\n`);
    process.exit(4);
  }
  const { n, p50 } = summary.downtimeMs;
  return { arm, p50: p50 ?? NaN, n, load1p50: summary.machineLoad?.load1.p50 ?? null, seconds: msSince(t0) / 1000 };
}

const loadBefore = load();
process.stdout.write(`${rounds} x 2 soaks of ${cycles} cycles (scenarios/effects.yaml, boot samples off)\n`);
const runs: Soak[] = [];
for (let round = 0; round < rounds; round++) {
  const order: Arm[] = round % 2 === 0 ? ['off', 'on'] : ['on', 'off'];
  for (const arm of order) {
    const s = soak(arm, runs.length);
    runs.push(s);
    const l = s.load1p50 === null ? 'n/a' : s.load1p50.toFixed(2);
    process.stdout.write(
      `  effects ${arm.padEnd(3)} downtime p50 ${s.p50.toFixed(1)} ms (n ${s.n}), load1 p50 ${l}, ${s.seconds.toFixed(0)} s\n`,
    );
  }
}
const of = (arm: Arm): number => median(runs.filter((r) => r.arm === arm).map((r) => r.p50));
const [off, on] = [of('off'), of('on')];
const paired = Array.from({ length: rounds }, (_, i) => {
  const pair = runs.slice(2 * i, 2 * i + 2);
  return pair.find((r) => r.arm === 'on')!.p50 / pair.find((r) => r.arm === 'off')!.p50;
});
const ratio = median(paired);
/** Every judged cycle's downtime of one arm's soaks (their journals), pooled. */
const pooled = (arm: Arm): number[] => {
  const out = path.join(tmp, `runs-${arm}`);
  return readdirSync(out)
    .filter((d) => d !== 'latest')
    .flatMap((d) => readFileSync(path.join(out, d, 'journal.ndjson'), 'utf8').split('\n'))
    .filter((l) => l.includes('"type":"cycle"'))
    .map((l) => (JSON.parse(l) as { downtimeMs: number | null }).downtimeMs)
    .filter((v): v is number => v !== null);
};
// where the downtime goes, per arm: the runner's kill path and each step of the hosts' restores
for (const arm of ['off', 'on'] as const) {
  const all = pooled(arm);
  process.stdout.write(
    `effects ${arm}: every cycle pooled (n ${all.length}) downtime median ${median(all).toFixed(1)} ms; ` +
      `${timelineSummary(path.join(tmp, `runs-${arm}`))}\n`,
  );
}
process.stdout.write(
  `median of downtime p50: without effects ${off.toFixed(1)} ms, with ${on.toFixed(1)} ms (ratio ${(on / off).toFixed(3)}); ` +
    `paired ratio on / off per round: median ${ratio.toFixed(3)}, range ${Math.min(...paired).toFixed(2)}-${Math.max(...paired).toFixed(2)} ` +
    `(bar <= 1.05: ${ratio <= 1.05 ? 'met' : 'not met'}); load average before ${loadBefore}, after ${load()}, ` +
    `${os.availableParallelism()} cores\n`,
);
if (values.keep) process.stdout.write(`kept ${tmp}\n`);
else rmSync(tmp, { recursive: true, force: true });
