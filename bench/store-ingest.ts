// Store ingest of repeated data on one core: a file the store already holds, put again (every chunk a dedup hit), end
// to end (read, cut, SHA-256, index lookups, manifest commit with fsync), beside SHA-256 alone over the same 4 KiB
// chunks in the same run: the ceiling on this machine, since every byte must be hashed once. Medians of 7 rounds.
// Also the first put of the same data (every chunk new, so compressed: --compression, lz4 by default).
// Run after tsc: node dist/bench/store-ingest.js [--mib 128] [--series /var/tmp/soak-series-20] [--compression lz4]
import { hash, randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type Compression, Store } from '../harness/store/store.js';
import type { Chunking } from '../harness/store/types.js';
import { benchArgs } from './args.js';

const { values } = benchArgs(
  'store-ingest',
  'Store ingest of data it already holds on one core, end to end, beside SHA-256 alone over the same chunks (the ceiling).',
  {
    mib: 'MiB of data per round',
    series: 'a saved micro-VM checkpoint series to ingest (if present)',
    rounds: 'rounds; the median is reported',
    compression: 'how new chunks are stored: lz4 (default), deflate or none',
  },
  {
    options: {
      mib: { type: 'string', default: '128' },
      series: { type: 'string', default: '/var/tmp/soak-series-20' },
      rounds: { type: 'string', default: '7' },
      compression: { type: 'string', default: 'lz4' },
    },
  },
);
const rounds = Number(values.rounds);
const compression = values.compression as Compression;
if (!['lz4', 'deflate', 'none'].includes(compression)) throw new Error(`--compression: lz4, deflate or none`);
const tmp = mkdtempSync(path.join(os.tmpdir(), 'soak-ingest-'));
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const mbps = (bytes: number, ms: number): number => bytes / 1e3 / ms;

/** Median MB/s of `rounds` timed runs of `fn` (after one warm-up, whose MB/s goes to `first`). */
async function timed(bytes: number, fn: () => Promise<void> | void, first?: (mbps: number) => void): Promise<number> {
  const t0 = process.hrtime.bigint();
  await fn();
  first?.(mbps(bytes, Number(process.hrtime.bigint() - t0) / 1e6));
  const out: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const t = process.hrtime.bigint();
    await fn();
    out.push(mbps(bytes, Number(process.hrtime.bigint() - t) / 1e6));
  }
  return median(out);
}

interface Row {
  sha: number;
  first: number;
  ingest: number;
  cpuPerWall: number;
}

async function ingest(file: string, chunking: Chunking): Promise<Row> {
  const store = Store.open(path.join(tmp, `store-${chunking}`), { compression });
  const bytes = statSync(file).size;
  const data = (await import('node:fs')).readFileSync(file);
  const sha = await timed(bytes, () => {
    for (let o = 0; o < data.length; o += 4096) hash('sha256', data.subarray(o, o + 4096), 'hex');
  });
  const cpu0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  let first = 0;
  const rate = await timed(
    bytes,
    async () => {
      const w = store.begin(0);
      await w.putFile('part', file, { chunking });
      w.commit();
    },
    (x) => (first = x),
  );
  const cpu = process.cpuUsage(cpu0);
  const wallUs = Number(process.hrtime.bigint() - t0) / 1e3;
  store.close();
  return { sha, first, ingest: rate, cpuPerWall: (cpu.user + cpu.system) / wallUs };
}

const rows: Array<[string, string, Row]> = [];
const synthetic = path.join(tmp, 'random.bin');
writeFileSync(synthetic, randomBytes(Number(values.mib) << 20));
rows.push([`${values.mib} MiB random file`, 'fixed', await ingest(synthetic, 'fixed')]);
const series = values.series;
if (existsSync(series)) {
  const last = readdirSync(series)
    .filter((d) => /^\d{4}$/.test(d))
    .sort()
    .at(-1);
  if (last) {
    const ram = path.join(series, last, 'ram');
    rows.push([
      `migration stream ${(statSync(ram).size / 2 ** 20).toFixed(1)} MiB (${last})`,
      'qemu-pages',
      await ingest(ram, 'qemu-pages'),
    ]);
  }
}
console.log(
  `store ingest of repeated data, one process, medians of ${rounds} (SHA-256 alone is the ceiling); first put ${compression}`,
);
console.log(
  '| data | chunking | SHA-256 alone MB/s | first put MB/s | ingest MB/s | ingest / SHA-256 | CPU per wall second |',
);
console.log('|---|---|---:|---:|---:|---:|---:|');
for (const [what, chunking, r] of rows) {
  console.log(
    `| ${what} | ${chunking} | ${r.sha.toFixed(0)} | ${r.first.toFixed(0)} | ${r.ingest.toFixed(0)} | ${(r.ingest / r.sha).toFixed(2)} | ${r.cpuPerWall.toFixed(2)} |`,
  );
}
console.log(
  `load average ${os
    .loadavg()
    .map((x) => x.toFixed(2))
    .join(' ')} on ${os.cpus().length} cores`,
);
rmSync(tmp, { recursive: true, force: true });
