// Per-phase times of the microvm target over N cycles (boot, pause, store write, restore, kill -> first full heartbeat) and the skew detection rate.
// Run after tsc: node dist/bench/microvm-phases.js [--cycles 20] [--skew-trials 10] [--accel auto|kvm|tcg] [--ingest file|inline] [--disk true|false] [--ram stream|memfd] [--save live|paused]
import { mkdtempSync, rmSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import os from 'node:os';
import path from 'node:path';
import { Store } from '../harness/store/store.js';
import type { Heartbeat } from '../harness/check/heartbeat.js';
import type { Target, TargetInfo } from '../harness/targets/target.js';
import { WorkloadModel } from '../harness/check/workload.js';
import { benchArgs } from './args.js';
import { median, microvmMaker, msSince as ms } from './measure.js';

const { values } = benchArgs(
  'microvm-phases',
  'Per-phase times of the microvm target over N cycles (boot, pause, store write, restore, kill -> first full heartbeat) and the skew detection rate.',
  {
    cycles: 'kill-and-restore cycles to time',
    'skew-trials': 'skewed captures the checker must catch',
    accel: 'accelerator: auto, kvm or tcg',
    ingest: 'how RAM reaches the store: file or inline',
    disk: 'include the guest disk in checkpoints: true or false',
    ram: 'RAM capture: stream or memfd',
    save: 'stream mode: save RAM live (pre-copy, QEMU pauses for the rest) or paused',
  },
  {
    options: {
      cycles: { type: 'string', default: '20' },
      'skew-trials': { type: 'string', default: '10' },
      accel: { type: 'string', default: 'auto' },
      ingest: { type: 'string', default: 'file' },
      disk: { type: 'string', default: 'true' },
      ram: { type: 'string', default: 'stream' },
      save: { type: 'string', default: 'live' },
    },
  },
);
const cycles = Number(values.cycles);
const skewTrials = Number(values['skew-trials']);
const options = {
  accel: values.accel,
  disk: values.disk !== 'false',
  ramCapture: values.ram,
  ramIngest: values.ingest,
  ramSave: values.save,
};

const root = mkdtempSync(path.join(os.tmpdir(), 'mvbench-'));
const store = Store.open(path.join(root, 'store'));
// Interrupted: QEMU children die with us (execa cleanup); remove the scratch store too.
for (const sig of ['SIGINT', 'SIGTERM'] as const) {
  process.once(sig, () => {
    rmSync(root, { recursive: true, force: true });
    process.exit(130);
  });
}
const model = new WorkloadModel();
const sleep = (t: number): Promise<void> => new Promise((r) => setTimeout(r, t));

const make = microvmMaker(root, options);

async function firstFull(hbs: Heartbeat[], timeoutMs: number): Promise<Heartbeat> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const hb = hbs.find((h) => h.full);
    if (hb) return hb;
    if (Date.now() > deadline) throw new Error('no full heartbeat');
    await sleep(2);
  }
}

function consistent(hb: Heartbeat): boolean {
  const want = model.expected(hb.step);
  return (
    hb.fs?.step === hb.step &&
    hb.mem?.step === hb.step &&
    hb.tool?.step === hb.step &&
    hb.fs.digest === want.fs &&
    hb.mem.digest === want.mem &&
    hb.tool.digest === want.tool
  );
}

function qemuPid(t: Target): number {
  return (t as unknown as { qemuPid: number }).qemuPid;
}

async function checkpoint(
  target: Target,
  skewMs: number,
): Promise<{ pauseMs: number; writeMs: number; totalMs: number; ramBytes: number; skewSteps: number }> {
  const t0 = process.hrtime.bigint();
  const writer = store.begin(0);
  const res = await target.checkpoint(writer, { skewMs });
  writer.step = res.step;
  writer.commit(res.meta);
  const totalMs = ms(t0);
  return {
    pauseMs: res.pauseMs,
    writeMs: totalMs - res.pauseMs,
    totalMs,
    ramBytes: Number(res.meta.ramStreamBytes),
    skewSteps: Number(res.meta.skewSteps),
  };
}

async function restoreLatest(): Promise<{
  target: Target;
  hbs: Heartbeat[];
  restoreMs: number;
  hb: Heartbeat;
  firstHbMs: number;
}> {
  const latest = store.latest();
  if (!latest) throw new Error('no checkpoint');
  const r = make();
  const t0 = process.hrtime.bigint();
  const started = performance.now();
  await r.target.restore(store.reader(latest));
  const restoreMs = ms(t0);
  // the restore's own steps (target phase marks), each since the one before
  let prev = started;
  for (const [step, at] of Object.entries(r.target.restoreMarks?.() ?? {})) {
    (phases[`restore.${step}`] ??= []).push(at - prev);
    prev = at;
  }
  const hb = await firstFull(r.hbs, 30_000);
  return { ...r, restoreMs, hb, firstHbMs: ms(t0) };
}

const phases: Record<string, number[]> = {
  boot: [],
  pause: [],
  storeWrite: [],
  restore: [],
  killToFullHb: [],
  ramMiB: [],
};
let verified = 0;
let describe: TargetInfo = {};
try {
  for (let c = 1; c <= cycles; c++) {
    const a = make();
    let t0 = process.hrtime.bigint();
    await a.target.boot();
    phases.boot!.push(ms(t0));
    describe = a.target.describe();
    await sleep(300);
    const ck = await checkpoint(a.target, 0);
    phases.pause!.push(ck.pauseMs);
    phases.storeWrite!.push(ck.writeMs);
    phases.ramMiB!.push(ck.ramBytes / 2 ** 20);
    const ckStep = store.latest()!.step;
    const nonce = a.hbs[0]!.nonce;
    await sleep(200);
    t0 = process.hrtime.bigint();
    process.kill(qemuPid(a.target), 'SIGKILL');
    await a.target.destroy();
    const b = await restoreLatest();
    phases.restore!.push(b.restoreMs);
    phases.killToFullHb!.push(ms(t0));
    const ok = b.hb.nonce === nonce && b.hb.step >= ckStep && b.hb.step <= ckStep + 1 && consistent(b.hb);
    if (ok) verified++;
    process.stderr.write(
      `cycle ${c}/${cycles}: boot ${phases.boot!.at(-1)!.toFixed(0)} ms, pause ${ck.pauseMs.toFixed(0)} ms, restore ${b.restoreMs.toFixed(0)} ms, ${ok ? 'verified' : 'NOT verified'}\n`,
    );
    await b.target.destroy();
  }

  let detected = 0;
  if (skewTrials > 0 && options.disk) {
    const a = make();
    await a.target.boot();
    for (let i = 0; i < skewTrials; i++) {
      await sleep(100);
      const ck = await checkpoint(a.target, 40);
      const b = await restoreLatest();
      if (!consistent(b.hb)) detected++;
      process.stderr.write(
        `skew trial ${i + 1}: steps in window ${ck.skewSteps}, checkpoint step ${store.latest()!.step}, restored step ${b.hb.step} fs ${b.hb.fs?.step} mem ${b.hb.mem?.step} -> ${consistent(b.hb) ? 'consistent (not detected)' : 'detected'}\n`,
      );
      await b.target.destroy();
    }
    await a.target.destroy();
  }

  const rows = Object.entries(phases).map(
    ([k, v]) =>
      `${k.padEnd(16)} median ${median(v).toFixed(1).padStart(8)}   min ${Math.min(...v)
        .toFixed(1)
        .padStart(8)}   max ${Math.max(...v)
        .toFixed(1)
        .padStart(8)}   n ${v.length}`,
  );
  console.log(
    `microvm phases (ms; ramMiB in MiB), ${String(describe.accelerator)} QEMU ${String(describe.qemuVersion)}, ${String(describe.memoryMiB)} MiB guest, disk ${String(describe.disk)}, ramCapture ${options.ramCapture}, save ${options.ramSave}`,
  );
  console.log(rows.join('\n'));
  console.log(`resumes verified: ${verified}/${cycles}`);
  const all = store.list();
  const logical = all.reduce((a, m) => a + m.logicalBytes, 0);
  const stored = all.reduce((a, m) => a + m.storedBytes, 0);
  console.log(
    `store: ${all.length} checkpoints, logical ${(logical / 2 ** 20).toFixed(1)} MiB, stored ${(stored / 2 ** 20).toFixed(1)} MiB, dedup ratio ${(logical / Math.max(1, stored)).toFixed(2)}`,
  );
  if (skewTrials > 0 && options.disk) console.log(`skew 40 ms detected: ${detected}/${skewTrials}`);
  console.log(
    JSON.stringify({
      schemaVersion: 1,
      describe,
      medians: Object.fromEntries(Object.entries(phases).map(([k, v]) => [k, median(v)])),
      verified,
      cycles,
      skewDetected: detected,
      skewTrials,
    }),
  );
} finally {
  store.close();
  rmSync(root, { recursive: true, force: true });
}
