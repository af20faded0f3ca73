// Store read-back speed: one checkpoint of RAM-like data (4 KiB pages: 60% compressible text, 30% random, 10% copies
// of a few common pages) stored with --compression (lz4, the default; deflate, as older stores; none), read back the
// way a restore does (every chunk decompressed and hash-checked): into a new scratch file (CheckpointReader.writeFile,
// as the process target does) and as reused pieces a consumer copies out (stream with reuse, as a micro-VM restore
// sends them to QEMU), beside SHA-256 alone over the same pages (every byte must be hashed once, so that is the
// ceiling). Each round opens the store afresh; Store.open + latest() + reader() is timed on its own. Medians of
// --rounds; also the process's CPU time per read (all threads), which a loaded machine distorts less than the wall
// time, and the store's stored bytes.
// Run after tsc: node dist/bench/store-read.js [--mib 128] [--rounds 5] [--threads N] [--compression lz4]
import { hash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { READ_THREADS_ENV, readThreads } from '../harness/store/read/read-pool.js';
import type { ReadCounts } from '../harness/store/read/part-stream.js';
import { type Compression, Store } from '../harness/store/store.js';
import { benchArgs } from './args.js';
import { median, msSince } from './measure.js';
import { ramLike } from './ram-like.js';

const { values } = benchArgs(
  'store-read',
  'Read back one RAM-like checkpoint the way a restore does (decompress + hash-check), beside SHA-256 alone (the ceiling).',
  {
    mib: 'MiB of RAM-like data',
    rounds: 'rounds; the median is reported',
    threads: `read worker threads (${READ_THREADS_ENV}; default min(2, cores); 0: on the reading thread)`,
    compression: 'how the checkpoint is stored: lz4 (default), deflate or none',
  },
  {
    options: {
      mib: { type: 'string', default: '128' },
      rounds: { type: 'string', default: '5' },
      threads: { type: 'string' },
      compression: { type: 'string', default: 'lz4' },
    },
  },
);
if (values.threads !== undefined) process.env[READ_THREADS_ENV] = values.threads; // read at the first read
const compression = values.compression as Compression;
if (!['lz4', 'deflate', 'none'].includes(compression))
  throw new Error(`--compression: lz4, deflate or none, not ${compression}`);
const bytes = Number(values.mib) << 20;
const rounds = Number(values.rounds);
const tmp = mkdtempSync(path.join(os.tmpdir(), 'soak-store-read-'));
const mbps = (ms: number): number => bytes / 1e3 / ms;

const data = ramLike(bytes);
const dir = path.join(tmp, 'store');
const store = Store.open(dir, { compression });
const w = store.begin(1);
const t0 = process.hrtime.bigint();
await w.put('ram', data);
const stored = w.commit().storedBytes;
const putMs = msSince(t0);
store.close();

const sha: number[] = [];
const opened: number[] = [];
const toFile: number[] = [];
const streamed: number[] = [];
const cpu: number[] = [];
let counts: ReadCounts = { chunks: 0, hashed: 0 };
const sink = Buffer.allocUnsafe(1 << 20); // the consumer's copy of each piece (QEMU's read of the socket)
for (let r = 0; r < rounds + 1; r++) {
  let t = process.hrtime.bigint();
  for (let o = 0; o < data.length; o += 4096) hash('sha256', data.subarray(o, o + 4096), 'hex');
  const shaMs = msSince(t);
  const out = path.join(tmp, 'ram.out');
  rmSync(out, { force: true }); // a restore's scratch file is new (truncating the last round's would be timed)
  t = process.hrtime.bigint();
  const s = Store.open(dir);
  const reader = s.reader(s.latest()!);
  const openMs = msSince(t);
  t = process.hrtime.bigint();
  const c0 = process.cpuUsage();
  await reader.writeFile('ram', out);
  const fileMs = msSince(t);
  const c = process.cpuUsage(c0);
  counts = { ...reader.counts };
  t = process.hrtime.bigint();
  for await (const piece of reader.stream('ram', { reuse: true })) piece.copy(sink);
  const streamMs = msSince(t);
  s.close();
  if (r === 0) continue; // warm-up
  sha.push(mbps(shaMs));
  opened.push(openMs);
  toFile.push(mbps(fileMs));
  streamed.push(mbps(streamMs));
  cpu.push((c.user + c.system) / 1e3);
}
console.log(
  `store read-back of ${values.mib} MiB RAM-like data (${compression}), medians of ${rounds} (target >= 800 MB/s)`,
);
console.log(
  '| SHA-256 alone MB/s | read to a file MB/s | read as reused pieces MB/s | read / SHA-256 | CPU ms per read (file) | open + latest ms | threads | chunks | hashed | stored MiB | put MB/s |',
);
console.log('|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
console.log(
  `| ${median(sha).toFixed(0)} | ${median(toFile).toFixed(0)} | ${median(streamed).toFixed(0)} | ` +
    `${(median(toFile) / median(sha)).toFixed(2)} | ${median(cpu).toFixed(0)} | ${median(opened).toFixed(1)} | ` +
    `${readThreads()} | ${counts.chunks} | ${counts.hashed} | ${(stored / 2 ** 20).toFixed(1)} | ${mbps(putMs).toFixed(0)} |`,
);
console.log(
  `load average ${os
    .loadavg()
    .map((x) => x.toFixed(2))
    .join(' ')} on ${os.cpus().length} cores`,
);
rmSync(tmp, { recursive: true, force: true });
