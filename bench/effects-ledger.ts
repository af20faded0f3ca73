// The effect ledger's cost on downtime (issue 34: "the ledger adds no more than 5% to downtime p50"): the same short
// process-target soak (scenarios/effects.yaml) with the effects field removed and with it, run by the real CLI in one
// bench run, interleaved (off, on, on, off, ...) so load drifts hit both alike (bench/ab-soaks.ts). Prints each run's
// downtime p50 and load average, the medians of those p50s per arm and their ratio on / off, the median of each
// round's paired ratio (its two soaks ran back to back, so a load change between rounds cancels), and the load average
// before and after.
import os from 'node:os';
import { abBench, type Arm } from './ab-soaks.js';
import { median } from './measure.js';
import { timelineSummary } from './restore-timeline.js';

const bench = abBench({
  name: 'effects-ledger',
  summary:
    'Downtime p50 of the same process-target soak without and with effects (the ledger), interleaved in one run.',
  adds: 'effects',
  defaultRounds: 8,
  scenario: 'effects.yaml',
  prefix: 'ledger',
  arm: ({ effects, ...rest }, arm) => ({ ...rest, ...(arm === 'on' ? { effects } : {}) }),
});
const { cycles, rounds } = bench;

interface Soak {
  arm: Arm;
  p50: number;
  n: number;
  load1p50: number | null;
  seconds: number;
}

/** One soak through the CLI; its summary.json's downtime and machine load. */
function soak(arm: Arm, i: number): Soak {
  const { summary: raw, seconds } = bench.soak(arm, i);
  const summary = raw as {
    downtimeMs: { n: number; p50: number | null };
    machineLoad?: { load1: { p50: number } };
    effects?: unknown;
  };
  if ((arm === 'on') !== (summary.effects !== undefined))
    bench.fail(`the ${arm} soak's summary ${arm === 'on' ? 'lacks' : 'has'} effects`, 4);
  const { n, p50 } = summary.downtimeMs;
  return { arm, p50: p50 ?? NaN, n, load1p50: summary.machineLoad?.load1.p50 ?? null, seconds };
}

const loadBefore = bench.load();
process.stdout.write(`${rounds} x 2 soaks of ${cycles} cycles (scenarios/effects.yaml, boot samples off)\n`);
const runs = bench.interleave(soak, (s) => {
  const l = s.load1p50 === null ? 'n/a' : s.load1p50.toFixed(2);
  process.stdout.write(
    `  effects ${s.arm.padEnd(3)} downtime p50 ${s.p50.toFixed(1)} ms (n ${s.n}), load1 p50 ${l}, ${s.seconds.toFixed(0)} s\n`,
  );
});
const of = (arm: Arm): number => median(runs.filter((r) => r.arm === arm).map((r) => r.p50));
const [off, on] = [of('off'), of('on')];
const paired = bench.paired(runs, (r) => r.p50);
const ratio = median(paired);
// where the downtime goes, per arm: the runner's kill path and each step of the hosts' restores
for (const arm of ['off', 'on'] as const) {
  const all = bench.pooled(arm, 'cycle', 'downtimeMs'); // every judged cycle's downtime
  process.stdout.write(
    `effects ${arm}: every cycle pooled (n ${all.length}) downtime median ${median(all).toFixed(1)} ms; ` +
      `${timelineSummary(bench.runsOf(arm))}\n`,
  );
}
process.stdout.write(
  `median of downtime p50: without effects ${off.toFixed(1)} ms, with ${on.toFixed(1)} ms (ratio ${(on / off).toFixed(3)}); ` +
    `paired ratio on / off per round: median ${ratio.toFixed(3)}, range ${Math.min(...paired).toFixed(2)}-${Math.max(...paired).toFixed(2)} ` +
    `(bar <= 1.05: ${ratio <= 1.05 ? 'met' : 'not met'}); load average before ${loadBefore}, after ${bench.load()}, ` +
    `${os.availableParallelism()} cores\n`,
);
bench.finish();
