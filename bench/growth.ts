// How a micro-VM resume's cost grows (issue 37, part 3), in one run: per guest size the bare floor and the store
// restore's downtime (cold host, warm standby) with its restore steps and ratio to that size's floor; then, at one
// size, downtime against the RAM the agent dirties per step and against the checkpoints already in the store; a table,
// the load average, and a page with the chart (growth-page.ts).
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchArgs } from './args.js';
import { floorTrials, loadavg, microvmLines, soakFigures } from './floor-trials.js';
import { type GrowthOptions, growthOptions, growthPage, type ModeFigures, type SizeRow } from './growth-page.js';
import { byCheckpoints, journalSamples } from './growth-samples.js';
import { median } from './measure.js';

const { values } = benchArgs(
  'growth',
  "Micro-VM resume from the store against guest RAM (beside each size's bare floor), the workload's step rate and the checkpoints in the store, in one run.",
  {
    sizes:
      'guest sizes in MiB, comma-separated (a size whose guest does not boot within --boot-wait is reported, not fatal)',
    'boot-wait': "seconds a guest may take to boot (targetOptions.bootTimeoutMs), the bench's bounded wait",
    cycles: 'soak cycles per size and mode, and per dirty-rate setting',
    floor: 'bare floor trials per size',
    modes:
      'cold, standby and/or pool (a new host; a warm standby with its warm copy; a pre-started host that read nothing of the session: each restoring from the store)',
    dirty:
      'KiB of RAM the agent dirties per step for the dirty-rate axis, with a warm standby at --at MiB ("" skips it)',
    checkpoints:
      'cycles of one standby soak at --at MiB whose downtime is set against the checkpoints in its store (0 skips it)',
    at: 'the guest size (MiB) of the dirty-rate and checkpoint axes (default: the first of --sizes)',
    accel: 'accelerator: auto, kvm or tcg',
    out: 'folder for growth.json, growth.md and index.html (default: reports/<date>-growth)',
  },
  {
    options: {
      sizes: { type: 'string', default: '256,512,1024,2048' },
      cycles: { type: 'string', default: '6' },
      floor: { type: 'string', default: '3' },
      modes: { type: 'string', default: 'cold,standby' },
      dirty: { type: 'string', default: '0,256,1024' },
      checkpoints: { type: 'string', default: '24' },
      at: { type: 'string' },
      'boot-wait': { type: 'string', default: '60' },
      accel: { type: 'string', default: 'auto' },
      out: { type: 'string' },
    },
  },
);

let opts: GrowthOptions;
try {
  opts = growthOptions(values);
} catch (err) {
  process.stderr.write(`growth: ${(err as Error).message}\n`);
  process.exit(3);
}
const accel = values.accel;
if (!['auto', 'kvm', 'tcg'].includes(accel)) {
  process.stderr.write(`growth: --accel must be auto, kvm or tcg (got "${accel}")\n`);
  process.exit(3);
}

const bootTimeoutMs = opts.bootWaitS * 1000;
const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
// the output folder is made before anything is measured: a bad --out costs nothing
const out = values.out ?? path.join(repo, 'reports', `${new Date().toISOString().slice(0, 10)}-growth`);
try {
  mkdirSync(out, { recursive: true });
} catch (err) {
  process.stderr.write(`growth: --out ${out}: ${(err as Error).message}\n`);
  process.exit(3);
}
const root = mkdtempSync(path.join(os.tmpdir(), 'growth-'));
for (const sig of ['SIGINT', 'SIGTERM'] as const)
  process.once(sig, () => {
    rmSync(root, { recursive: true, force: true });
    process.exit(130);
  });
const log = (line: string): void => void process.stderr.write(`${line}\n`);
const medianOrNull = (xs: number[]): number | null => (xs.length === 0 ? null : median(xs));

/** One ram-only soak at `memoryMiB` (a mode, `dirtyKiB` per agent step) of `cycles` cycles, with its journal's bytes. */
async function soak(name: string, memoryMiB: number, mode: 'cold' | 'standby' | 'pool', cycles: number, dirtyKiB = 0) {
  const lines = [
    `target: microvm`,
    `cycles: ${cycles}`,
    `standby: ${mode === 'cold' ? false : mode === 'pool' ? 'pool' : true}`,
    ...microvmLines(accel, memoryMiB, { dirtyKiB, bootTimeoutMs }),
  ];
  const f = await soakFigures(root, name, lines);
  log(
    `${name}: p50 ${f.p50.toFixed(0)} ms, p95 ${f.p95.toFixed(0)} ms, resumed ${f.ok}/${cycles}; ${f.steps} (load ${loadavg()})`,
  );
  const j = journalSamples(readFileSync(path.join(f.runs, 'latest', 'journal.ndjson'), 'utf8'));
  const figures: ModeFigures = {
    mode,
    p50: f.p50,
    p95: f.p95,
    resumed: f.ok,
    cycles,
    steps: f.stepMs,
    // every checkpoint but the store's first (which stores the whole stream): what each later one adds
    logicalPerCkpt: medianOrNull(j.checkpoints.slice(1).map((c) => c.logicalBytes)),
    storedPerCkpt: medianOrNull(j.checkpoints.slice(1).map((c) => c.storedBytes)),
  };
  return { figures, cycles: j.cycles };
}

try {
  const before = loadavg();
  log(`growth: sizes ${opts.sizes.join(', ')} MiB, ${opts.cycles} cycles, ${opts.floor} floor trials, load ${before}`);
  const sizes: SizeRow[] = [];
  for (const memoryMiB of opts.sizes) {
    let floor;
    try {
      floor = await floorTrials({ root, accel, memoryMiB, trials: opts.floor, withTarget: false, log, bootTimeoutMs });
    } catch (err) {
      // a guest that does not boot (or resume) within the target's bounded wait: this size is reported, not measured
      const why = (err as Error).message.split('\n')[0]!.slice(0, 200);
      log(`growth: ${memoryMiB} MiB not measured: ${why}`);
      sizes.push({
        memoryMiB,
        floorMs: [],
        floorPhases: null,
        streamBytes: null,
        modes: [],
        load: loadavg(),
        skipped: why,
      });
      continue;
    }
    const ph = floor.phases;
    const row: SizeRow = {
      memoryMiB,
      floorMs: floor.bare,
      floorPhases: {
        qmpMs: median(ph.map((p) => p.qmpMs)),
        loadMs: median(ph.map((p) => p.loadMs)),
        contToHbMs: median(ph.map((p) => p.contToHbMs)),
      },
      streamBytes: floor.streamBytes,
      modes: [],
      load: '',
    };
    try {
      for (const mode of opts.modes)
        row.modes.push((await soak(`growth-${memoryMiB}-${mode}`, memoryMiB, mode, opts.cycles)).figures);
    } catch (err) {
      // its floor stays in the table; its soaks are reported as not measured, with why
      row.skipped = (err as Error).message.split('\n')[0]!.slice(0, 200);
      log(`growth: ${memoryMiB} MiB soaks not measured: ${row.skipped}`);
    }
    row.load = loadavg();
    sizes.push(row);
  }
  const dirty = [];
  for (const kibPerStep of opts.dirty) {
    const s = await soak(`growth-${opts.at}-dirty${kibPerStep}`, opts.at, 'standby', opts.cycles, kibPerStep);
    dirty.push({ kibPerStep, figures: s.figures, load: loadavg() });
  }
  let checkpoints = null;
  if (opts.checkpoints > 0) {
    const s = await soak(`growth-${opts.at}-checkpoints`, opts.at, 'standby', opts.checkpoints);
    checkpoints = { memoryMiB: opts.at, groups: byCheckpoints(s.cycles) };
  }
  const date = new Date().toISOString();
  const page = await growthPage({
    options: opts,
    cores: os.cpus().length,
    accel,
    date: `${date.slice(0, 16).replace('T', ' ')} UTC`,
    command: `node dist/bench/growth.js ${process.argv.slice(2).join(' ')}`.trim(),
    load: { before, after: loadavg() },
    sizes,
    dirty,
    checkpoints,
  });
  const json = { schemaVersion: 1, options: opts, sizes, dirty, checkpoints };
  writeFileSync(path.join(out, 'growth.json'), `${JSON.stringify(json, null, 2)}\n`);
  writeFileSync(path.join(out, 'growth.md'), page.markdown);
  writeFileSync(path.join(out, 'index.html'), page.html);
  process.stdout.write(`${page.markdown}\n${page.bar}\ngrowth page: ${path.join(out, 'index.html')}\n`);
} catch (err) {
  process.stderr.write(`growth: ${(err as Error).message.split('\n')[0]}\n`);
  process.exitCode = 4;
} finally {
  rmSync(root, { recursive: true, force: true });
}
