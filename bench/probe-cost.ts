// The guest-state probe's cost on the checkpoint pause and downtime (issue 33: "probing adds no more than 10% to the
// checkpoint pause p50"): the same short process-target soak (scenarios/default.yaml, boot samples off) without and
// with `probe: true`, run by the real CLI in one bench run, interleaved (off, on, on, off, ...) so load drifts hit both
// alike. Prints each soak's checkpoint pause p50/p95, downtime p50 and load average; per arm the medians of those, every
// checkpoint's pause and every cycle's downtime pooled, where the downtime goes; each round's paired ratio on / off
// (its two soaks ran back to back, so a load change between rounds cancels) with its median and range.
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
  'probe-cost',
  'Checkpoint pause and downtime of the same process-target soak without and with the guest-state probe, interleaved.',
  {
    cycles: 'kill-and-resume cycles per soak',
    rounds: 'pairs of soaks (one without the probe, one with; the order alternates)',
    keep: 'keep the scratch folder (run folders and reports) and print its path',
  },
  {
    options: {
      cycles: { type: 'string', default: '20' },
      rounds: { type: 'string', default: '6' },
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
    process.stderr.write(`probe-cost: --${name} must be a positive integer (see --help)\n`);
    process.exit(3);
  }
}

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const cli = path.join(root, 'dist', 'harness', 'cli.js');
const load = (): string => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');

type Arm = 'off' | 'on';
const tmp = mkdtempSync(path.join(os.tmpdir(), 'soak-probe-bench-'));
// the same scenario twice: boot samples off (not what is measured), the probe off in one and on in the other
const base = parse(readFileSync(path.join(root, 'scenarios', 'default.yaml'), 'utf8')) as Record<string, unknown>;
const scenarioOf = (arm: Arm): string => {
  const file = path.join(tmp, `probe-${arm}.yaml`);
  writeFileSync(file, stringify({ ...base, name: `probe-${arm}`, bootSamples: 0, probe: arm === 'on' }));
  return file;
};
const scenarios: Record<Arm, string> = { off: scenarioOf('off'), on: scenarioOf('on') };

/** The figures of one soak: checkpoint pause p50/p95 and downtime p50 (ms), their n, the machine's load. */
interface Soak {
  arm: Arm;
  pause50: number;
  pause95: number;
  pauseN: number;
  down50: number;
  downN: number;
  examined: number;
  load1p50: number | null;
  seconds: number;
}
interface Distribution {
  n: number;
  p50: number | null;
  p95: number | null;
}

/** One soak through the CLI; its summary.json's pause, downtime, probe count and machine load. */
function soak(arm: Arm, i: number): Soak {
  const reports = path.join(tmp, `reports-${i}`);
  mkdirSync(reports);
  const out = path.join(tmp, `runs-${arm}`);
  const args = [cli, 'run', '--scenario', scenarios[arm], '--cycles', String(cycles), '--out', out];
  const t0 = process.hrtime.bigint();
  const r = spawnSync(process.execPath, [...args, '--report-dir', reports], { encoding: 'utf8', timeout: 20 * 60_000 });
  if (r.status === null || r.status > 2) {
    process.stderr.write(`probe-cost: soak ${arm} ended with ${r.status ?? r.signal}: ${r.stderr.trim()}\n`);
    process.exit(4);
  }
  const [dir] = readdirSync(reports);
  const summary = JSON.parse(readFileSync(path.join(reports, dir!, 'summary.json'), 'utf8')) as {
    downtimeMs: Distribution;
    checkpointPauseMs: Distribution;
    machineLoad?: { load1: { p50: number } };
    guestState?: { examined: number };
  };
  const examined = summary.guestState?.examined ?? 0;
  // the on arm must really have probed (an examination journaled), the off arm must not have
  if ((arm === 'on') !== examined > 0) {
    process.stderr.write(`probe-cost: the ${arm} soak's summary has ${examined} probe examinations\n`);
    process.exit(4);
  }
  const { checkpointPauseMs: cp, downtimeMs: dt } = summary;
  return {
    ...{ arm, pause50: cp.p50 ?? NaN, pause95: cp.p95 ?? NaN, pauseN: cp.n, down50: dt.p50 ?? NaN, downN: dt.n },
    ...{ examined, load1p50: summary.machineLoad?.load1.p50 ?? null, seconds: msSince(t0) / 1000 },
  };
}

const loadBefore = load();
process.stdout.write(`${rounds} x 2 soaks of ${cycles} cycles (scenarios/default.yaml, boot samples off)\n`);
const runs: Soak[] = [];
for (let round = 0; round < rounds; round++) {
  const order: Arm[] = round % 2 === 0 ? ['off', 'on'] : ['on', 'off'];
  for (const arm of order) {
    const s = soak(arm, runs.length);
    runs.push(s);
    const l = s.load1p50 === null ? 'n/a' : s.load1p50.toFixed(2);
    process.stdout.write(
      `  probe ${arm.padEnd(3)} pause p50 ${s.pause50.toFixed(2)} p95 ${s.pause95.toFixed(2)} ms (n ${s.pauseN}), ` +
        `downtime p50 ${s.down50.toFixed(1)} ms (n ${s.downN}), examined ${s.examined}, load1 p50 ${l}, ` +
        `${s.seconds.toFixed(0)} s\n`,
    );
  }
}

type Figure = 'pause50' | 'pause95' | 'down50';
const figures: [Figure, string][] = [
  ['pause50', 'checkpoint pause p50'],
  ['pause95', 'checkpoint pause p95'],
  ['down50', 'downtime p50'],
];
const of = (arm: Arm, f: Figure): number => median(runs.filter((r) => r.arm === arm).map((r) => r[f]));
const paired = (f: Figure): number[] =>
  Array.from({ length: rounds }, (_, i) => {
    const pair = runs.slice(2 * i, 2 * i + 2);
    return pair.find((r) => r.arm === 'on')![f] / pair.find((r) => r.arm === 'off')![f];
  });

/** One journal event field of one arm's soaks, pooled over every run folder. */
const pooled = (arm: Arm, type: string, field: string): number[] => {
  const out = path.join(tmp, `runs-${arm}`);
  return readdirSync(out)
    .filter((d) => d !== 'latest')
    .flatMap((d) => readFileSync(path.join(out, d, 'journal.ndjson'), 'utf8').split('\n'))
    .filter((l) => l.includes(`"type":"${type}"`))
    .map((l) => (JSON.parse(l) as Record<string, unknown>)[field])
    .filter((v): v is number => typeof v === 'number');
};
for (const arm of ['off', 'on'] as const) {
  const pauses = pooled(arm, 'checkpoint', 'pauseMs');
  const downs = pooled(arm, 'cycle', 'downtimeMs');
  process.stdout.write(
    `probe ${arm}: pooled checkpoint pause median ${median(pauses).toFixed(2)} ms (n ${pauses.length}), ` +
      `downtime median ${median(downs).toFixed(1)} ms (n ${downs.length}); ${timelineSummary(path.join(tmp, `runs-${arm}`))}\n`,
  );
}
for (const [f, label] of figures) {
  const ps = paired(f);
  const [off, on] = [of('off', f), of('on', f)];
  process.stdout.write(
    `${label}: median without the probe ${off.toFixed(2)} ms, with ${on.toFixed(2)} ms (ratio ${(on / off).toFixed(3)}); ` +
      `paired ratio on / off: median ${median(ps).toFixed(3)}, range ${Math.min(...ps).toFixed(2)}-${Math.max(...ps).toFixed(2)}` +
      `${f === 'pause50' ? ` (bar <= 1.10: ${median(ps) <= 1.1 ? 'met' : 'not met'})` : ''}\n`,
  );
}
process.stdout.write(`load average before ${loadBefore}, after ${load()}, ${os.availableParallelism()} cores\n`);
if (values.keep) process.stdout.write(`kept ${tmp}\n`);
else rmSync(tmp, { recursive: true, force: true });
