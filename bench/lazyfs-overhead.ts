// The lazy file system's overhead (issue 17): one live process-target session checkpoints alternately into a store on
// the plain file system and into one on lazyfs (the FUSE layer power-loss scenarios put under the store), in the same
// run, so load drifts hit both alike; then a synthetic part of --mib MiB (a quarter new each round) is written into
// each. Prints medians of the checkpoint pause and the store write (commit with its fsyncs included), their ratios
// lazyfs / plain, n and the load average. Run after tsc: node dist/bench/lazyfs-overhead.js [--checkpoints 20]
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fuseAvailable, LazyMount } from '../harness/nemesis/lazyfs.js';
import { Store } from '../harness/store/store.js';
import { createTarget } from '../harness/targets/registry.js';
import { benchArgs } from './args.js';
import { median, msSince as ms } from './measure.js';

const { values } = benchArgs(
  'lazyfs-overhead',
  'Checkpoint pause and store write through lazyfs vs the plain file system, alternating in the same run (ratios, medians, load).',
  {
    checkpoints: 'process-target checkpoints into each store',
    mib: 'MiB of the synthetic part written per round (a quarter of it new each round)',
    rounds: 'synthetic store-write rounds into each store',
  },
  {
    options: {
      checkpoints: { type: 'string', default: '20' },
      mib: { type: 'string', default: '16' },
      rounds: { type: 'string', default: '9' },
    },
  },
);
const checkpoints = Number(values.checkpoints);
const mib = Number(values.mib);
const rounds = Number(values.rounds);
for (const [name, v] of [
  ['checkpoints', checkpoints],
  ['mib', mib],
  ['rounds', rounds],
] as const) {
  if (!Number.isInteger(v) || v < 1) {
    process.stderr.write(`lazyfs-overhead: --${name} must be a positive integer (see --help)\n`);
    process.exit(3);
  }
}
if (!fuseAvailable()) {
  process.stderr.write('lazyfs-overhead: needs /dev/fuse (FUSE) for the lazy file system; not measured\n');
  process.exit(3);
}

const load1 = (): string => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');

type Fs = 'plain' | 'lazyfs';
const tmp = mkdtempSync(path.join(os.tmpdir(), 'soak-lazyfs-bench-'));
const loadBefore = load1();
const lazy = await LazyMount.mount(path.join(tmp, 'backing'), path.join(tmp, 'live'));
const stores: Record<Fs, Store> = {
  plain: Store.open(path.join(tmp, 'plain', 'store'), { purpose: 'bench' }),
  lazyfs: Store.open(path.join(lazy.mountpoint, 'store'), { purpose: 'bench' }),
};
const samples: Record<Fs, { pause: number[]; write: number[]; synthetic: number[] }> = {
  plain: { pause: [], write: [], synthetic: [] },
  lazyfs: { pause: [], write: [], synthetic: [] },
};
const order = (i: number): Fs[] => (i % 2 === 0 ? ['plain', 'lazyfs'] : ['lazyfs', 'plain']);

for (const dir of ['work', 'session']) mkdirSync(path.join(tmp, dir), { mode: 0o700 });
const target = await createTarget('process', {
  workDir: path.join(tmp, 'work'),
  sessionDir: path.join(tmp, 'session'),
  stepMs: 5,
  options: {},
});
try {
  const up = new Promise<void>((resolve) => target.onHeartbeat((hb) => hb.full && resolve()));
  await target.boot();
  await up;
  for (let i = 0; i < checkpoints + 1; i++) {
    for (const fs of order(i)) {
      const t0 = process.hrtime.bigint();
      const w = stores[fs].begin(0);
      const r = await target.checkpoint(w, { skewMs: 0 });
      w.step = r.step;
      w.commit({ pauseMs: r.pauseMs });
      if (i === 0) continue; // warm-up
      samples[fs].pause.push(r.pauseMs);
      samples[fs].write.push(ms(t0) - r.pauseMs);
    }
  }
  const bytes = mib * 1024 * 1024;
  const data = randomBytes(bytes);
  for (let i = 0; i < rounds + 1; i++) {
    randomBytes(bytes / 4).copy(data, (i % 4) * (bytes / 4)); // a quarter of the part is new each round
    for (const fs of order(i)) {
      const t0 = process.hrtime.bigint();
      const w = stores[fs].begin(i);
      await w.put('part', data);
      w.commit();
      if (i > 0) samples[fs].synthetic.push(ms(t0));
    }
  }
} finally {
  await target.destroy();
  for (const s of Object.values(stores)) s.close();
  await lazy.unmount();
  rmSync(tmp, { recursive: true, force: true });
}

const rows: [string, keyof (typeof samples)['plain'], number][] = [
  ['checkpoint pause (process target; its pause does not write the store)', 'pause', checkpoints],
  ['checkpoint store write (parts + commit with fsyncs)', 'write', checkpoints],
  [`store write of a ${mib} MiB part, 1/4 new (+ commit)`, 'synthetic', rounds],
];
const lines = [
  `lazyfs overhead: ${os.cpus().length} cores, load average before ${loadBefore}, after ${load1()}`,
  '',
  '| measure | n | plain median ms | lazyfs median ms | ratio lazyfs/plain |',
  '| --- | --- | --- | --- | --- |',
  ...rows.map(([label, key, n]) => {
    const p = median(samples.plain[key]);
    const l = median(samples.lazyfs[key]);
    return `| ${label} | ${n} | ${p.toFixed(2)} | ${l.toFixed(2)} | ${(l / p).toFixed(2)} |`;
  }),
  '',
];
process.stdout.write(`${lines.join('\n')}\n`);
