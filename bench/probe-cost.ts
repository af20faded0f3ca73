// The guest-state probe's cost on the checkpoint pause and downtime (issue 33: "probing adds no more than 10% to the
// checkpoint pause p50"): the same short process-target soak (scenarios/default.yaml, boot samples off) without and
// with `probe: true`, run by the real CLI in one bench run, interleaved (off, on, on, off, ...) so load drifts hit both
// alike. Prints each soak's checkpoint pause p50/p95, downtime p50 and load average; per arm the medians of those, every
// checkpoint's pause and every cycle's downtime pooled, where the downtime goes; each round's paired ratio on / off
// (its two soaks ran back to back, so a load change between rounds cancels) with its median and range.
import os from 'node:os';
import { abBench, type Arm } from './ab-soaks.js';
import { median } from './measure.js';
import { timelineSummary } from './restore-timeline.js';

const bench = abBench({
  name: 'probe-cost',
  summary:
    'Checkpoint pause and downtime of the same process-target soak without and with the guest-state probe, interleaved.',
  adds: 'the probe',
  defaultRounds: 6,
  scenario: 'default.yaml',
  prefix: 'probe',
  arm: (base, arm) => ({ ...base, probe: arm === 'on' }),
});
const { cycles, rounds } = bench;

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
  const { summary: raw, seconds } = bench.soak(arm, i);
  const summary = raw as {
    downtimeMs: Distribution;
    checkpointPauseMs: Distribution;
    machineLoad?: { load1: { p50: number } };
    guestState?: { examined: number };
  };
  const examined = summary.guestState?.examined ?? 0;
  // the on arm must really have probed (an examination journaled), the off arm must not have
  if ((arm === 'on') !== examined > 0) bench.fail(`the ${arm} soak's summary has ${examined} probe examinations`, 4);
  const { checkpointPauseMs: cp, downtimeMs: dt } = summary;
  return {
    ...{ arm, pause50: cp.p50 ?? NaN, pause95: cp.p95 ?? NaN, pauseN: cp.n, down50: dt.p50 ?? NaN, downN: dt.n },
    ...{ examined, load1p50: summary.machineLoad?.load1.p50 ?? null, seconds },
  };
}

const loadBefore = bench.load();
process.stdout.write(`${rounds} x 2 soaks of ${cycles} cycles (scenarios/default.yaml, boot samples off)\n`);
const runs = bench.interleave(soak, (s) => {
  const l = s.load1p50 === null ? 'n/a' : s.load1p50.toFixed(2);
  process.stdout.write(
    `  probe ${s.arm.padEnd(3)} pause p50 ${s.pause50.toFixed(2)} p95 ${s.pause95.toFixed(2)} ms (n ${s.pauseN}), ` +
      `downtime p50 ${s.down50.toFixed(1)} ms (n ${s.downN}), examined ${s.examined}, load1 p50 ${l}, ` +
      `${s.seconds.toFixed(0)} s\n`,
  );
});

type Figure = 'pause50' | 'pause95' | 'down50';
const figures: [Figure, string][] = [
  ['pause50', 'checkpoint pause p50'],
  ['pause95', 'checkpoint pause p95'],
  ['down50', 'downtime p50'],
];
const of = (arm: Arm, f: Figure): number => median(runs.filter((r) => r.arm === arm).map((r) => r[f]));
const paired = (f: Figure): number[] => bench.paired(runs, (r) => r[f]);
for (const arm of ['off', 'on'] as const) {
  const pauses = bench.pooled(arm, 'checkpoint', 'pauseMs');
  const downs = bench.pooled(arm, 'cycle', 'downtimeMs');
  process.stdout.write(
    `probe ${arm}: pooled checkpoint pause median ${median(pauses).toFixed(2)} ms (n ${pauses.length}), ` +
      `downtime median ${median(downs).toFixed(1)} ms (n ${downs.length}); ${timelineSummary(bench.runsOf(arm))}\n`,
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
process.stdout.write(`load average before ${loadBefore}, after ${bench.load()}, ${os.availableParallelism()} cores\n`);
bench.finish();
