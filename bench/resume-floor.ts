// Resume against the machine's floor (issue 16), in one run: the bare floor (a new QEMU loading the RAM stream from a
// local file, to the first verified heartbeat; bench/bare-floor.ts), beside it the target's restore from the same file,
// and the product's kill -> verified heartbeat (`soak run` downtime) for a cold
// host and a warm standby (microvm ram-only, and the process target), each as a ratio to the floor, with the load.
// Template-fresh sessions are not built yet: reported as such.
import { createReadStream, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { execaNode } from 'execa';
import type { Heartbeat } from '../harness/check/heartbeat.js';
import { Store } from '../harness/store/store.js';
import type { CheckpointSource } from '../harness/store/types.js';
import { resolveGuestEnv } from '../harness/targets/microvm/env.js';
import { parseMicrovmOptions } from '../harness/targets/microvm/options.js';
import { probeKvmBoot } from '../harness/targets/microvm/probe.js';
import { benchArgs } from './args.js';
import { type BareFloorTrial, bareFloorTrial } from './bare-floor.js';
import { timelineSummary } from './restore-timeline.js';
import { median, microvmMaker, msSince as ms, verifiedResume } from './measure.js';

/** One product mode of `--modes`: a `soak run` of this target, its scenario lines, cold or with a warm standby. */
interface ProductMode {
  target: 'microvm' | 'process';
  /** Every resume handed to a warm standby host (scenario `standby: true`). */
  standby: boolean;
  /** Scenario lines beyond name, target, cycles and standby, for accelerator `accel`. */
  lines: (accel: string) => string[];
  /** Fresh sessions from a template snapshot: their boot p50 is reported too (the fresh start). */
  freshStart?: boolean;
  /** What `--help` says of it beyond its name. */
  note?: string;
}

const microvmLines = (accel: string, hotCopy = false): string[] => [
  'stepMs: 5',
  'checkpoint: { everyMs: 1500 }',
  'kill: { phases: { work: 1 }, workDelayMs: [500, 2500] }',
  'resumeTimeoutMs: 60000',
  `targetOptions: { memoryMiB: 256, disk: false, accel: ${accel}, ramCapture: stream, hotCopy: ${hotCopy} }`,
];
const templateLines = (accel: string, hotCopy = false): string[] => [
  'session: fresh',
  'stepMs: 5',
  'checkpoint: { everyMs: 2000 }',
  'kill: { phases: { work: 1 }, workDelayMs: [500, 3000] }',
  'resumeTimeoutMs: 60000',
  `targetOptions: { memoryMiB: 256, disk: true, accel: ${accel}, ramCapture: stream, fresh: template, hotCopy: ${hotCopy} }`,
];
const processLines = (): string[] => [
  'stepMs: 5',
  'checkpoint: { everyMs: 100 }',
  'kill: { phases: { work: 1 }, workDelayMs: [100, 400] }',
];

/** The product modes by name, in the default order; a new mode is one row. */
const MODES: Record<string, ProductMode> = {
  'microvm-cold': { target: 'microvm', standby: false, lines: microvmLines },
  'microvm-standby': { target: 'microvm', standby: true, lines: microvmLines },
  'microvm-standby-hot': {
    target: 'microvm',
    standby: true,
    lines: (accel) => microvmLines(accel, true),
    note: 'restores read the verified hot local copy, targetOptions.hotCopy',
  },
  'microvm-template': {
    target: 'microvm',
    standby: false,
    lines: templateLines,
    freshStart: true,
    note: 'fresh sessions from a template snapshot, with disk',
  },
  'microvm-template-standby-hot': {
    target: 'microvm',
    standby: true,
    lines: (accel) => templateLines(accel, true),
    freshStart: true,
    note: 'template fresh sessions and resumes to a warm standby, restores from the verified hot local copy',
  },
  'process-cold': { target: 'process', standby: false, lines: processLines },
  'process-standby': { target: 'process', standby: true, lines: processLines },
};

const { values } = benchArgs(
  'resume-floor',
  "The floor (new QEMU, RAM stream from a local file, to the first verified heartbeat) and soak downtime (kill -> first verified heartbeat) for cold and warm-standby resumes, as ratios to the floor's median.",
  {
    floor: 'floor trials (each: a bare QEMU from a local file, then the target restore from it)',
    cycles: 'soak cycles per product mode',
    accel: 'accelerator: auto, kvm or tcg',
    modes: `comma-separated product modes: ${Object.entries(MODES)
      .map(([name, m]) => (m.note === undefined ? name : `${name} (${m.note})`))
      .join(', ')}`,
  },
  {
    options: {
      floor: { type: 'string', default: '8' },
      cycles: { type: 'string', default: '10' },
      accel: { type: 'string', default: 'auto' },
      modes: { type: 'string', default: Object.keys(MODES).join(',') },
    },
  },
);
const modes = values.modes.split(',').filter((m) => m !== '');
const unknown = modes.filter((m) => !(m in MODES));
if (unknown.length > 0) {
  process.stderr.write(`resume-floor: unknown mode ${unknown.join(', ')} (modes: ${Object.keys(MODES).join(', ')})\n`);
  process.exit(3);
}

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

const make = microvmMaker(root, options);

/** The first full heartbeat, once it arrives (60 s at most). */
async function firstFull(hbs: Heartbeat[]): Promise<Heartbeat> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const hb = hbs.find((h) => h.full);
    if (hb) return hb;
    if (Date.now() > deadline) throw new Error('no full heartbeat within 60 s');
    await sleep(1);
  }
}

/** The floor trials' times: the bare floor and the target's restore from the same local file, interleaved. */
interface FloorTimes {
  bare: number[];
  target: number[];
  /** Bare trials' phases: spawn -> QMP, -> stream loaded, cont -> first full heartbeat. */
  phases: Array<BareFloorTrial['phases']>;
}

/**
 * Boot once, checkpoint, copy the RAM stream to a local file; then each trial resumes from that file twice: bare (a new
 * QEMU with `-incoming exec:cat FILE`, bench/bare-floor.ts) and through the target's restore (RAM from the same file,
 * the machine record from the store), alternating so load drift hits both alike.
 */
async function floor(trials: number): Promise<FloorTimes> {
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
    const local: CheckpointSource = {
      seq: reader.seq,
      step: reader.step,
      parts: () => reader.parts(),
      get: (name) => reader.get(name),
      stream: (name) => (name === 'ram' ? createReadStream(file) : reader.stream(name)),
      writeFile: (name, to) => reader.writeFile(name, to),
    };
    // the same environment the target resolved at boot (image, accelerator, TSC), resolved again before any timing
    const opts = parseMicrovmOptions(options);
    const env = await resolveGuestEnv(opts.qemuBinary, opts.accel, (image) =>
      probeKvmBoot(
        {
          binary: opts.qemuBinary,
          accel: 'kvm',
          memoryMiB: 128,
          kernel: image.kernel,
          initramfs: image.initramfs,
          stepMs: 5,
          qmpSocket: '',
          incoming: false,
          maxLifetimeMs: 60_000,
        },
        path.join(root, 'probe.sock'),
      ),
    );
    const out: FloorTimes = { bare: [], target: [], phases: [] };
    for (let i = 0; i < trials; i++) {
      const bare = await bareFloorTrial({
        env,
        binary: opts.qemuBinary,
        memoryMiB: opts.memoryMiB,
        stepMs: 5,
        streamFile: file,
        dir: root,
      });
      if (!verifiedResume(bare.hb, nonce, reader.step))
        throw new Error(`bare floor trial ${i + 1}: heartbeat did not verify`);
      out.bare.push(bare.ms);
      out.phases.push(bare.phases);
      const b = make();
      // resolve the guest environment (QEMU version, image, accelerator, TSC) first: this row starts at restore()
      await (b.target as unknown as { prepare(): Promise<void> }).prepare();
      const t0 = process.hrtime.bigint();
      await b.target.restore(local);
      const hb = await firstFull(b.hbs);
      const t = ms(t0);
      await b.target.destroy();
      if (!verifiedResume(hb, nonce, reader.step))
        throw new Error(`target floor trial ${i + 1}: heartbeat did not verify`);
      out.target.push(t);
      const p = bare.phases;
      process.stderr.write(
        `floor ${i + 1}/${trials}: bare ${bare.ms.toFixed(0)} ms (qmp ${p.qmpMs.toFixed(0)}, load ${p.loadMs.toFixed(0)}, cont->HBF ${p.contToHbMs.toFixed(0)}), target restore ${t.toFixed(0)} ms (load avg ${load()})\n`,
      );
    }
    return out;
  } finally {
    store.close();
  }
}

/** One product mode: a `soak run` of `cycles` cycles; its downtime p50/p95 (kill -> first verified heartbeat). */
async function product(
  mode: string,
  cycles: number,
): Promise<{ p50: number; p95: number; ok: number; steps: string; freshStartP50?: number }> {
  const m = MODES[mode]!;
  const file = path.join(root, `${mode}.yaml`);
  writeFileSync(
    file,
    [
      `name: floor-${mode}`,
      `target: ${m.target}`,
      `cycles: ${cycles}`,
      `standby: ${m.standby}`,
      ...m.lines(values.accel),
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
  process.stderr.write(`${mode} ${timelineSummary(out)}
`);
  const fresh = m.freshStart ? { freshStartP50: summary.bootMs.p50 } : {};
  return {
    p50: summary.downtimeMs.p50,
    p95: summary.downtimeMs.p95,
    ok: summary.cycles.resumed,
    steps: timelineSummary(out),
    ...fresh,
  };
}

try {
  const floorTrials = Number(values.floor);
  const cycles = Number(values.cycles);
  process.stderr.write(`load before: ${load()}\n`);
  const fl = await floor(floorTrials);
  const f = median(fl.bare);
  const range = (xs: number[]): string => `${Math.min(...xs).toFixed(0)}-${Math.max(...xs).toFixed(0)}`;
  const tf = median(fl.target);
  const rows: string[] = [
    `floor (bare: new QEMU, -incoming exec:cat FILE)  median ${f.toFixed(0)} ms (${range(fl.bare)})  n ${floorTrials}  1.00x  load ${load()}`,
    `  phases (medians): spawn->QMP ${median(fl.phases.map((p) => p.qmpMs)).toFixed(0)} ms, stream loaded ${median(fl.phases.map((p) => p.loadMs)).toFixed(0)} ms, cont->HBF ${median(fl.phases.map((p) => p.contToHbMs)).toFixed(0)} ms`,
    `target restore from a local file          median ${tf.toFixed(0)} ms (${range(fl.target)})  n ${floorTrials}  ${(tf / f).toFixed(2)}x`,
  ];
  const results: Record<string, unknown> = { floorMs: f, floorBareMs: fl.bare, targetLocalMs: fl.target };
  for (const mode of modes) {
    const p = await product(mode, cycles);
    results[mode] = p;
    rows.push(
      `${mode.padEnd(40)} p50 ${p.p50.toFixed(0)} ms (${(p.p50 / f).toFixed(2)}x)  p95 ${p.p95.toFixed(0)} ms (${(p.p95 / f).toFixed(2)}x)  resumed ${p.ok}/${cycles}${p.freshStartP50 === undefined ? '' : `  fresh start p50 ${p.freshStartP50.toFixed(0)} ms`}  load ${load()}`,
      `  ${p.steps}`,
    );
    process.stderr.write(`${rows.at(-2)!}\n`);
  }
  if (!('microvm-template' in results)) rows.push('template-fresh: not measured (add microvm-template to --modes)');
  process.stdout.write(
    `${rows.join('\n')}\nload after: ${load()}\n${JSON.stringify({ schemaVersion: 1, ...results })}\n`,
  );
} finally {
  rmSync(root, { recursive: true, force: true });
}
