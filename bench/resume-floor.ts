// Resume against the machine's floor (issue 16), in one run: the floor (a new QEMU loading the RAM stream from a local
// file, to the first verified heartbeat) and the product's kill -> verified heartbeat (`soak run` downtime) for a cold
// host and a warm standby (microvm ram-only, and the process target), each as a ratio to the floor, with the load.
// Template-fresh sessions are not built yet: reported as such.
import { createReadStream, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { execaNode } from 'execa';
import { WorkloadModel } from '../harness/check/workload.js';
import type { Heartbeat } from '../harness/check/heartbeat.js';
import { Store } from '../harness/store/store.js';
import type { CheckpointSource } from '../harness/store/types.js';
import { benchArgs } from './args.js';
import { median, microvmMaker, msSince as ms } from './measure.js';

const { values } = benchArgs(
  'resume-floor',
  "The floor (new QEMU, RAM stream from a local file, to the first verified heartbeat) and soak downtime (kill -> first verified heartbeat) for cold and warm-standby resumes, as ratios to the floor's median.",
  {
    floor: 'floor trials (new QEMU from a local file)',
    cycles: 'soak cycles per product mode',
    accel: 'accelerator: auto, kvm or tcg',
    modes:
      'comma-separated product modes: microvm-cold, microvm-standby, microvm-template (fresh sessions from a template snapshot, with disk), process-cold, process-standby',
  },
  {
    options: {
      floor: { type: 'string', default: '8' },
      cycles: { type: 'string', default: '10' },
      accel: { type: 'string', default: 'auto' },
      modes: { type: 'string', default: 'microvm-cold,microvm-standby,microvm-template,process-cold,process-standby' },
    },
  },
);

const here = path.dirname(fileURLToPath(import.meta.url));
const cli = path.join(here, '..', 'harness', 'cli.js');
const root = mkdtempSync(path.join(os.tmpdir(), 'resume-floor-'));
for (const sig of ['SIGINT', 'SIGTERM'] as const)
  process.once(sig, () => {
    rmSync(root, { recursive: true, force: true });
    process.exit(130);
  });
const sleep = (t: number): Promise<void> => new Promise((r) => setTimeout(r, t));
const load = (): string =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
const options = { accel: values.accel, disk: false, memoryMiB: 256, ramCapture: 'stream' };
const model = new WorkloadModel();

const make = microvmMaker(root, options);

/** The first full heartbeat, once it arrives, and whether the checker's part rules hold for it. */
async function firstVerified(hbs: Heartbeat[], nonce: string, minStep: number): Promise<boolean> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const hb = hbs.find((h) => h.full);
    if (hb) {
      const want = model.expected(hb.step);
      return (
        hb.nonce === nonce &&
        hb.step >= minStep &&
        hb.fs?.digest === want.fs &&
        hb.mem?.digest === want.mem &&
        hb.tool?.digest === want.tool
      );
    }
    if (Date.now() > deadline) throw new Error('no full heartbeat within 60 s');
    await sleep(1);
  }
}

/** The floor: boot once, checkpoint, copy the RAM stream to a local file; then each trial restores from that file. */
async function floor(trials: number): Promise<number[]> {
  const store = Store.open(path.join(root, 'store'));
  try {
    const a = make();
    await a.target.boot();
    const nonce = a.hbs.find((h) => h.full)!.nonce;
    await sleep(300);
    const writer = store.begin(0);
    const res = await a.target.checkpoint(writer, { skewMs: 0 });
    writer.step = res.step;
    writer.commit(res.meta);
    await a.target.destroy();
    const reader = store.reader(store.latest()!);
    const file = path.join(root, 'ram.stream');
    await reader.writeFile('ram', file);
    // the store's reader for the machine record; RAM from the local file (what QEMU's `-incoming exec:cat FILE` reads)
    const local: CheckpointSource = {
      seq: reader.seq,
      step: reader.step,
      parts: () => reader.parts(),
      get: (name) => reader.get(name),
      stream: (name) => (name === 'ram' ? createReadStream(file) : reader.stream(name)),
      writeFile: (name, to) => reader.writeFile(name, to),
    };
    const times: number[] = [];
    for (let i = 0; i < trials; i++) {
      const b = make();
      // resolve the guest environment (QEMU version, image, accelerator, TSC) first: the floor starts at QEMU's start
      await (b.target as unknown as { prepare(): Promise<void> }).prepare();
      const t0 = process.hrtime.bigint();
      await b.target.restore(local);
      const ok = await firstVerified(b.hbs, nonce, reader.step);
      const t = ms(t0);
      await b.target.destroy();
      if (!ok) throw new Error(`floor trial ${i + 1}: the resumed heartbeat did not verify`);
      times.push(t);
      process.stderr.write(`floor ${i + 1}/${trials}: ${t.toFixed(0)} ms (load ${load()})\n`);
    }
    return times;
  } finally {
    store.close();
  }
}

/** One product mode: a `soak run` of `cycles` cycles; its downtime p50/p95 (kill -> first verified heartbeat). */
async function product(
  mode: string,
  cycles: number,
): Promise<{ p50: number; p95: number; ok: number; freshStartP50?: number }> {
  const [target, resume] = mode.split('-') as [string, string];
  const template = [
    'session: fresh',
    'stepMs: 5',
    'checkpoint: { everyMs: 2000 }',
    'kill: { phases: { work: 1 }, workDelayMs: [500, 3000] }',
    'resumeTimeoutMs: 60000',
    `targetOptions: { memoryMiB: 256, disk: true, accel: ${values.accel}, ramCapture: stream, fresh: template }`,
  ];
  const lines =
    resume === 'template'
      ? template
      : target === 'microvm'
        ? [
            'stepMs: 5',
            'checkpoint: { everyMs: 1500 }',
            'kill: { phases: { work: 1 }, workDelayMs: [500, 2500] }',
            'resumeTimeoutMs: 60000',
            `targetOptions: { memoryMiB: 256, disk: false, accel: ${values.accel}, ramCapture: stream }`,
          ]
        : ['stepMs: 5', 'checkpoint: { everyMs: 100 }', 'kill: { phases: { work: 1 }, workDelayMs: [100, 400] }'];
  const file = path.join(root, `${mode}.yaml`);
  writeFileSync(
    file,
    [
      `name: floor-${mode}`,
      `target: ${target}`,
      `cycles: ${cycles}`,
      `standby: ${resume === 'standby'}`, // microvm-template: fresh sessions restore a template snapshot
      ...lines,
    ].join('\n'),
  );
  const out = path.join(root, `runs-${mode}`);
  const r = await execaNode(cli, ['run', '--scenario', file, '--out', out, '--no-report', '--no-judge', '--json'], {
    reject: false,
    stdin: 'ignore',
    env: { CI: '1' },
  });
  if (r.exitCode !== 0) throw new Error(`${mode}: soak run exited ${r.exitCode}: ${r.stderr.split('\n')[0] ?? ''}`);
  const summary = (
    JSON.parse(r.stdout) as {
      summary: { downtimeMs: { p50: number; p95: number }; cycles: { resumed: number }; bootMs: { p50: number } };
    }
  ).summary;
  const fresh = resume === 'template' ? { freshStartP50: summary.bootMs.p50 } : {};
  return { p50: summary.downtimeMs.p50, p95: summary.downtimeMs.p95, ok: summary.cycles.resumed, ...fresh };
}

try {
  const floorTrials = Number(values.floor);
  const cycles = Number(values.cycles);
  process.stderr.write(`load before: ${load()}\n`);
  const f = median(await floor(floorTrials));
  const rows: string[] = [
    `floor (new QEMU, RAM from a local file)  median ${f.toFixed(0)} ms  n ${floorTrials}  1.00x`,
  ];
  const results: Record<string, unknown> = { floorMs: f };
  for (const mode of values.modes.split(',').filter((m) => m !== '')) {
    const p = await product(mode, cycles);
    results[mode] = p;
    rows.push(
      `${mode.padEnd(40)} p50 ${p.p50.toFixed(0)} ms (${(p.p50 / f).toFixed(2)}x)  p95 ${p.p95.toFixed(0)} ms (${(p.p95 / f).toFixed(2)}x)  resumed ${p.ok}/${cycles}${p.freshStartP50 === undefined ? '' : `  fresh start p50 ${p.freshStartP50.toFixed(0)} ms`}  load ${load()}`,
    );
    process.stderr.write(`${rows.at(-1)!}\n`);
  }
  if (!('microvm-template' in results)) rows.push('template-fresh: not measured (add microvm-template to --modes)');
  process.stdout.write(
    `${rows.join('\n')}\nload after: ${load()}\n${JSON.stringify({ schemaVersion: 1, ...results })}\n`,
  );
} finally {
  rmSync(root, { recursive: true, force: true });
}
