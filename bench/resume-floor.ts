// Resume against the machine's floor (issue 16), in one run: the bare floor (a new QEMU loading the RAM stream from a
// local file, to the first verified heartbeat; bench/bare-floor.ts), beside it the target's restore from the same file,
// and the product's kill -> verified heartbeat (`soak run` downtime) for a cold
// host and a warm standby (microvm ram-only, and the process target), each as a ratio to the floor, with the load.
// Template-fresh sessions are not built yet: reported as such.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { benchArgs } from './args.js';
import { floorTrials, loadavg as load, microvmLines, soakFigures } from './floor-trials.js';
import { median } from './measure.js';

/** One product mode of `--modes`: a `soak run` of this target, its scenario lines, cold or with a warm standby. */
interface ProductMode {
  target: 'microvm' | 'process';
  /** Every resume handed to a warm standby host (scenario `standby: true`), or to a pool host (`standby: pool`). */
  standby: boolean | 'pool';
  /** Scenario lines beyond name, target, cycles and standby, for accelerator `accel`. */
  lines: (accel: string, memoryMiB: number) => string[];
  /** Fresh sessions from a template snapshot: their boot p50 is reported too (the fresh start). */
  freshStart?: boolean;
  /** What `--help` says of it beyond its name. */
  note?: string;
}

const templateLines = (accel: string, memoryMiB: number, hotCopy = false): string[] => [
  'session: fresh',
  'stepMs: 5',
  'checkpoint: { everyMs: 2000 }',
  'kill: { phases: { work: 1 }, workDelayMs: [500, 3000] }',
  'resumeTimeoutMs: 60000',
  `targetOptions: { memoryMiB: ${memoryMiB}, disk: true, accel: ${accel}, ramCapture: stream, fresh: template, hotCopy: ${hotCopy} }`,
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
  'microvm-pool': {
    target: 'microvm',
    standby: 'pool',
    lines: microvmLines,
    note: 'a pre-started host that read nothing of the session before the kill (scenario standby: pool)',
  },
  'microvm-pool-memfd': {
    target: 'microvm',
    standby: 'pool',
    lines: (accel, memoryMiB) => microvmLines(accel, memoryMiB, { ramCapture: 'memfd' }),
    note: 'a pool host, guest RAM in a memfd (ramCapture: memfd): a restore writes the checked pages into it',
  },
  'microvm-standby-hot': {
    target: 'microvm',
    standby: true,
    lines: (accel, memoryMiB) => microvmLines(accel, memoryMiB, { hotCopy: true }),
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
    lines: (accel, memoryMiB) => templateLines(accel, memoryMiB, true),
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
    memory: "the micro-VM guest's RAM, MiB, for the floor and every micro-VM mode (bench/growth.ts: several at once)",
    modes: `comma-separated product modes: ${Object.entries(MODES)
      .map(([name, m]) => (m.note === undefined ? name : `${name} (${m.note})`))
      .join(', ')}`,
  },
  {
    options: {
      floor: { type: 'string', default: '8' },
      cycles: { type: 'string', default: '10' },
      accel: { type: 'string', default: 'auto' },
      memory: { type: 'string', default: '256' },
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

const memoryMiB = Number(values.memory);
if (!Number.isInteger(memoryMiB) || memoryMiB < 64 || memoryMiB > 16_384) {
  process.stderr.write(`resume-floor: --memory must be a whole number of MiB, 64-16384 (got "${values.memory}")\n`);
  process.exit(3);
}
const root = mkdtempSync(path.join(os.tmpdir(), 'resume-floor-'));
for (const sig of ['SIGINT', 'SIGTERM'] as const)
  process.once(sig, () => {
    rmSync(root, { recursive: true, force: true });
    process.exit(130);
  });

/** How many times each mode has run in this invocation (a mode named twice runs twice, each in a folder of its own). */
const runsOf = new Map<string, number>();

/** One product mode: a `soak run` of `cycles` cycles; its downtime p50/p95 (kill -> first verified heartbeat). */
async function product(
  mode: string,
  cycles: number,
): Promise<{ p50: number; p95: number; ok: number; steps: string; freshStartP50?: number }> {
  const m = MODES[mode]!;
  const lines = [
    `target: ${m.target}`,
    `cycles: ${cycles}`,
    `standby: ${m.standby}`,
    ...m.lines(values.accel, memoryMiB),
  ];
  const n = (runsOf.get(mode) ?? 0) + 1;
  runsOf.set(mode, n);
  // its own runs folder: the step medians are read from the folder's host logs, which a repeat would share
  const f = await soakFigures(root, n === 1 ? `floor-${mode}` : `floor-${mode}-${n}`, lines);
  process.stderr.write(`${mode} ${f.steps}\n`);
  const fresh = m.freshStart ? { freshStartP50: f.bootP50 } : {};
  return { p50: f.p50, p95: f.p95, ok: f.ok, steps: f.steps, ...fresh };
}

try {
  const trials = Number(values.floor);
  const cycles = Number(values.cycles);
  process.stderr.write(`load before: ${load()}\n`);
  const log = (line: string): void => void process.stderr.write(`${line}\n`);
  const fl = await floorTrials({ root, accel: values.accel, memoryMiB, trials, withTarget: true, log });
  const f = median(fl.bare);
  const range = (xs: number[]): string => `${Math.min(...xs).toFixed(0)}-${Math.max(...xs).toFixed(0)}`;
  const tf = median(fl.target);
  const rows: string[] = [
    `floor (bare: new QEMU, -incoming exec:cat FILE)  median ${f.toFixed(0)} ms (${range(fl.bare)})  n ${trials}  1.00x  load ${load()}`,
    `  phases (medians): spawn->QMP ${median(fl.phases.map((p) => p.qmpMs)).toFixed(0)} ms, stream loaded ${median(fl.phases.map((p) => p.loadMs)).toFixed(0)} ms, cont->HBF ${median(fl.phases.map((p) => p.contToHbMs)).toFixed(0)} ms`,
    `target restore from a local file          median ${tf.toFixed(0)} ms (${range(fl.target)})  n ${trials}  ${(tf / f).toFixed(2)}x`,
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
