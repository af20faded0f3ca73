// Store open cost against history: `Store.open + latest()` (what a restoring host does before it reads any data) and
// the warm-up a restored host does next (`warmPageKeys()`: the writer's view of every chunk) on a store of N
// checkpoints, at several N, beside open with every pack index read first (how open worked before per-checkpoint
// location indexes). Each checkpoint: a 1 MiB part (256 fixed chunks) with a few pages changed, plus a
// small part, like the process target's. Medians of --rounds, each on a freshly opened store.
// Run after tsc: node dist/bench/store-open.js [--at 56,900,3600] [--rounds 15] [--dir DIR]
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { TEST_NO_FSYNC_BEFORE_RENAME } from '../harness/core/durable.js';
import { Store } from '../harness/store/store.js';
import { benchArgs } from './args.js';

const { values } = benchArgs(
  'store-open',
  "Store.open + latest() and a restored host's warm-up (warmPageKeys) on a store of N checkpoints (several N), beside open with every pack index read first.",
  {
    at: 'checkpoint counts to measure at, comma-separated (the store grows to the largest)',
    rounds: 'opens per measurement; the median is reported',
    dir: 'keep the store in DIR and reuse it on the next run (default: a temporary folder, removed)',
  },
  {
    options: {
      at: { type: 'string', default: '56,900,3600' },
      rounds: { type: 'string', default: '15' },
      dir: { type: 'string' },
    },
  },
);
const marks = values.at
  .split(',')
  .map(Number)
  .sort((a, b) => a - b);
if (marks.some((n) => !Number.isInteger(n) || n < 1)) {
  process.stderr.write(`store-open: --at takes whole numbers >= 1 (got ${values.at})\n`);
  process.exit(3);
}
const rounds = Number(values.rounds);
const dir = values.dir ?? mkdtempSync(path.join(os.tmpdir(), 'soak-store-open-'));
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const ms = (t: bigint): number => Number(process.hrtime.bigint() - t) / 1e6;

/** Grow the store to `n` checkpoints (file fsyncs off while building: durability is not what is measured). */
async function growTo(n: number): Promise<void> {
  const store = Store.open(dir, { purpose: 'bench store-open' });
  let seq = store.lastSeq();
  const page = Buffer.alloc(1 << 20);
  for (let i = 0; i < page.length; i += 4096) page.writeUInt32LE(i, i);
  process.env[TEST_NO_FSYNC_BEFORE_RENAME] = '1';
  try {
    while (seq < n) {
      seq++;
      for (let p = 0; p < 3; p++) randomBytes(64).copy(page, ((seq * 7 + p * 31) % 256) * 4096 + 128);
      const w = store.begin(seq);
      await w.put('memory', page);
      await w.put('tool', Buffer.from(JSON.stringify({ step: seq })));
      w.commit();
    }
  } finally {
    Reflect.deleteProperty(process.env, TEST_NO_FSYNC_BEFORE_RENAME);
    store.close();
  }
}

/** Medians (ms) of open + latest(), of the restored host's warm-up after it, and of open + every pack index + latest(). */
function timeOpen(): { open: number; warm: number; scan: number } {
  const open: number[] = [];
  const warm: number[] = [];
  const scan: number[] = [];
  for (let r = 0; r < rounds + 1; r++) {
    let t = process.hrtime.bigint();
    const store = Store.open(dir, { purpose: 'bench store-open' });
    const m = store.latest();
    const opened = ms(t);
    t = process.hrtime.bigint();
    store.warmPageKeys(m);
    const warmed = ms(t);
    store.close();
    t = process.hrtime.bigint();
    const old = Store.open(dir, { purpose: 'bench store-open' });
    old.reload(true); // every pack index, as open did before location indexes (and warm-up before chunks.cix)
    old.latest();
    const scanned = ms(t);
    old.close();
    if (!m) throw new Error('store-open: the store has no complete checkpoint');
    if (r === 0) continue; // the first open warms the modules and the page cache
    open.push(opened);
    warm.push(warmed);
    scan.push(scanned);
  }
  return { open: median(open), warm: median(warm), scan: median(scan) };
}

console.log(
  `Store.open + latest(), then warmPageKeys() (a restored host's warm-up), medians of ${rounds} opens (targets at 3,600 checkpoints: <= 20 ms and well under 50 ms)`,
);
console.log('| checkpoints | open + latest() ms | warm-up ms | reading every pack index first ms |');
console.log('|---:|---:|---:|---:|');
for (const n of marks) {
  const t = process.hrtime.bigint();
  await growTo(n);
  const built = ms(t);
  const { open, warm, scan } = timeOpen();
  console.log(`| ${n} | ${open.toFixed(2)} | ${warm.toFixed(2)} | ${scan.toFixed(2)} |`);
  process.stderr.write(`(grew to ${n} checkpoints in ${(built / 1000).toFixed(1)} s)\n`);
}
console.log(
  `load average ${os
    .loadavg()
    .map((x) => x.toFixed(2))
    .join(' ')} on ${os.cpus().length} cores`,
);
if (values.dir === undefined) rmSync(dir, { recursive: true, force: true });
