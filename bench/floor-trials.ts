// The micro-VM resume floor at any guest size, and a product soak's downtime beside it (issues 16 and 37): boot a
// ram-only guest of `memoryMiB`, checkpoint it, keep its RAM stream as a local file, then time the bare floor (a new
// QEMU loading that file, bench/bare-floor.ts) and, if asked, the target's restore from the same file, interleaved;
// and a `soak run` of scenario lines through the real CLI, its downtime and its restore steps (restore-timeline.ts).
import { createReadStream, mkdirSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { execaNode } from 'execa';
import type { Heartbeat } from '../harness/check/heartbeat.js';
import { Store } from '../harness/store/store.js';
import type { CheckpointSource } from '../harness/store/types.js';
import { resolveGuestEnv } from '../harness/targets/microvm/env.js';
import { GuestPorts } from '../harness/targets/microvm/guest-ports.js';
import { parseMicrovmOptions } from '../harness/targets/microvm/options.js';
import { probeKvmBoot } from '../harness/targets/microvm/probe.js';
import { type BareFloorTrial, bareFloorTrial } from './bare-floor.js';
import { stepMedians, timelineSummary } from './restore-timeline.js';
import { microvmMaker, msSince as ms, verifiedResume } from './measure.js';

/** A ram-only micro-VM soak's scenario lines (resume-floor's micro-VM modes, growth's rows) at guest size `memoryMiB`. */
export const microvmLines = (
  accel: string,
  memoryMiB: number,
  o: {
    hotCopy?: boolean;
    stepMs?: number;
    bootTimeoutMs?: number;
    dirtyKiB?: number;
    ramCapture?: 'stream' | 'memfd';
  } = {},
): string[] => [
  `stepMs: ${o.stepMs ?? 5}`,
  'checkpoint: { everyMs: 1500 }',
  'kill: { phases: { work: 1 }, workDelayMs: [500, 2500] }',
  'resumeTimeoutMs: 60000',
  `targetOptions: { memoryMiB: ${memoryMiB}, disk: false, accel: ${accel}, ramCapture: ${o.ramCapture ?? 'stream'}, hotCopy: ${o.hotCopy ?? false}${o.bootTimeoutMs === undefined ? '' : `, bootTimeoutMs: ${o.bootTimeoutMs}`}${o.dirtyKiB ? `, dirtyKiBPerStep: ${o.dirtyKiB}` : ''} }`,
];

const sleep = (t: number): Promise<void> => new Promise((r) => setTimeout(r, t));
/** The load average, three figures. */
export const loadavg = (): string =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

/** The floor trials' times: the bare floor and (when asked) the target's restore from the same local file. */
export interface FloorTimes {
  bare: number[];
  target: number[];
  /** Bare trials' phases: spawn -> QMP, -> stream loaded, cont -> first full heartbeat. */
  phases: Array<BareFloorTrial['phases']>;
  /** Bytes of the RAM stream the floor loads (what the guest touched, not its size). */
  streamBytes: number;
}

/** What the floor needs: a scratch folder, the accelerator, the guest size, the trials, and whether to time the target. */
export interface FloorSpec {
  root: string;
  accel: string;
  memoryMiB: number;
  trials: number;
  /** Also time `target.restore()` from the same file after each bare trial (resume-floor's second row). */
  withTarget: boolean;
  /** Progress lines (stderr). */
  log: (line: string) => void;
  /** The guest's boot wait (targetOptions.bootTimeoutMs; default the target's, 60 s). */
  bootTimeoutMs?: number;
}

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

/**
 * Boot once, checkpoint, copy the RAM stream to a local file; then each trial resumes from that file: bare (a new QEMU
 * with `-incoming exec:cat FILE`) and, with `withTarget`, through the target's restore (RAM from the same file, the
 * machine record from the store), alternating so load drift hits both alike. Every resume's heartbeat is verified.
 */
export async function floorTrials(spec: FloorSpec): Promise<FloorTimes> {
  const dir = path.join(spec.root, `floor-${spec.memoryMiB}`);
  const options = {
    accel: spec.accel,
    disk: false,
    memoryMiB: spec.memoryMiB,
    ramCapture: 'stream',
    ...(spec.bootTimeoutMs === undefined ? {} : { bootTimeoutMs: spec.bootTimeoutMs }),
  };
  mkdirSync(dir, { recursive: true });
  const make = microvmMaker(dir, options); // its work folders (w1, w2...) are this size's own
  const store = Store.open(path.join(dir, 'store'));
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
    const file = path.join(dir, 'ram.stream');
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
        path.join(spec.root, 'probe.sock'),
      ),
    );
    const out: FloorTimes = { bare: [], target: [], phases: [], streamBytes: statSync(file).size };
    for (let i = 0; i < spec.trials; i++) {
      const bare = await bareFloorTrial({
        env,
        binary: opts.qemuBinary,
        memoryMiB: opts.memoryMiB,
        stepMs: 5,
        streamFile: file,
        dir: spec.root,
        ports: GuestPorts.of(opts, false).sockets((name) => path.join(spec.root, `bare-${name}`)),
      });
      if (!verifiedResume(bare.hb, nonce, reader.step))
        throw new Error(`bare floor trial ${i + 1}: heartbeat did not verify`);
      out.bare.push(bare.ms);
      out.phases.push(bare.phases);
      const p = bare.phases;
      let targetRow = '';
      if (spec.withTarget) {
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
        targetRow = `, target restore ${t.toFixed(0)} ms`;
      }
      spec.log(
        `floor ${spec.memoryMiB} MiB ${i + 1}/${spec.trials}: bare ${bare.ms.toFixed(0)} ms (qmp ${p.qmpMs.toFixed(0)}, load ${p.loadMs.toFixed(0)}, cont->HBF ${p.contToHbMs.toFixed(0)})${targetRow} (load avg ${loadavg()})`,
      );
    }
    return out;
  } finally {
    store.close();
  }
}

/** One soak's figures: downtime p50/p95 (kill -> first verified heartbeat), resumed cycles, the restore's steps. */
export interface SoakFigures {
  p50: number;
  p95: number;
  ok: number;
  /** The restore steps as one line (timelineSummary). */
  steps: string;
  /** Each restore step's median ms since the step before (stepMedians). */
  stepMs: Record<string, number>;
  bootP50: number;
  /** The run folder (its journal: per-cycle downtime). */
  runs: string;
}

const cli = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'harness', 'cli.js');

/** A `soak run` of the scenario `lines` (name, target, cycles... all of it) through the CLI, in `root`. */
export async function soakFigures(root: string, name: string, lines: string[]): Promise<SoakFigures> {
  const file = path.join(root, `${name}.yaml`);
  writeFileSync(file, [`name: ${name}`, ...lines].join('\n'));
  const runs = path.join(root, `runs-${name}`);
  const r = await execaNode(cli, ['run', '--scenario', file, '--out', runs, '--no-report', '--no-judge', '--json'], {
    reject: false,
    stdin: 'ignore',
    env: { CI: '1' },
  });
  if (r.exitCode !== 0) throw new Error(`${name}: soak run exited ${r.exitCode}: ${r.stderr.split('\n')[0] ?? ''}`);
  const summary = (
    JSON.parse(r.stdout) as {
      summary: { downtimeMs: { p50: number; p95: number }; cycles: { resumed: number }; bootMs: { p50: number } };
    }
  ).summary;
  return {
    p50: summary.downtimeMs.p50,
    p95: summary.downtimeMs.p95,
    ok: summary.cycles.resumed,
    steps: timelineSummary(runs),
    stepMs: stepMedians(runs),
    bootP50: summary.bootMs.p50,
    runs,
  };
}
