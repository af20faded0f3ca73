// Fresh microvm session start from a template snapshot (issue 16: bar 0.6 s), phase by phase: from target.boot() to
// the first full heartbeat with the session's new nonce, split at the target's marks (template found, disk copied,
// QEMU up, RAM loaded, identity written, cont, first full heartbeat). Builds the template first if none is cached.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { benchArgs } from './args.js';
import { median, microvmMaker } from './measure.js';

const { values } = benchArgs(
  'template-start',
  'Fresh session start from a template snapshot (microvm): total (boot() -> first full heartbeat with a new nonce) p50/p95 and each phase median, with the load average.',
  {
    trials: 'fresh starts measured (after one untimed start that builds or warms the template)',
    accel: 'accelerator: auto, kvm or tcg',
    disk: 'with a workspace disk (as scenarios/fresh-template.yaml)',
    standby:
      "start each session in a warm standby's QEMU (warmUp(): -incoming defer, untimed), as `standby: true` runs do",
  },
  {
    options: {
      trials: { type: 'string', default: '10' },
      accel: { type: 'string', default: 'tcg' },
      disk: { type: 'boolean', default: true },
      standby: { type: 'boolean', default: false },
    },
  },
);

const load = (): string =>
  os
    .loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');
const quantile = (xs: number[], q: number): number => [...xs].sort((a, b) => a - b)[Math.ceil(q * xs.length) - 1]!;
const root = mkdtempSync(path.join(os.tmpdir(), 'template-start-'));
const options = { memoryMiB: 256, disk: values.disk, diskMiB: 128, accel: values.accel, ramCapture: 'stream' };
const make = microvmMaker(root, { ...options, fresh: 'template' });
const phases: Record<string, number[]> = {};
const totals: number[] = [];
const nonces = new Set<string>();
try {
  process.stderr.write(`load before: ${load()}\n`);
  const trials = Number(values.trials);
  for (let i = 0; i <= trials; i++) {
    const { target, hbs } = make();
    if (values.standby) await target.warmUp!(); // before the request: off the measured path
    const t0 = performance.now();
    await target.boot();
    const first = hbs.find((h) => h.full);
    const hbAt = performance.now(); // boot() resolves on the first full heartbeat
    await target.destroy();
    if (first === undefined || first.step !== 0 || nonces.has(first.nonce))
      throw new Error(`start ${i}: no fresh full heartbeat at step 0 with a new nonce`);
    nonces.add(first.nonce);
    if (i === 0) continue; // builds or warms the template
    const marks = Object.entries({ ...target.restoreMarks?.(), firstFullHb: hbAt }).sort(([, a], [, b]) => a - b);
    let prev = t0;
    for (const [name, at] of marks) {
      (phases[name] ??= []).push(at - prev);
      prev = at;
    }
    totals.push(hbAt - t0);
    process.stderr.write(`start ${i}/${trials}: ${(hbAt - t0).toFixed(0)} ms (load ${load()})\n`);
  }
  const steps = Object.entries(phases).map(([k, v]) => `${k} ${median(v).toFixed(0)}`);
  process.stdout.write(
    `template fresh start${values.standby ? ' (warm standby)' : ''}  p50 ${median(totals).toFixed(0)} ms  p95 ${quantile(totals, 0.95).toFixed(0)} ms  n ${totals.length}  load ${load()}\n` +
      `  phases (median ms since the step before): ${steps.join(', ')}\n` +
      `${JSON.stringify({ schemaVersion: 1, startMs: totals, phases })}\n`,
  );
} finally {
  rmSync(root, { recursive: true, force: true });
}
