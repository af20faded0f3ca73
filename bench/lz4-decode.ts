// LZ4 block decode speed on one core: RAM-like pages (bench/ram-like.ts, as store-read stores them: each distinct page
// once, gathered into ~64 KiB blocks, a block kept as LZ4 when it shrinks by 1/8, as pack.ts does) compressed with
// lz4-napi, then decoded into one reused SharedArrayBuffer (as the read pool's slots) by lz4-napi's native
// uncompressSync (the reference: it allocates each block's output, which is why the store does not use it; here its
// output is copied over) and by harness/store/read/lz4-block.ts, alternating round by round so load drift hits both alike;
// each also into a plain ArrayBuffer (where a block that does not fit a slot goes). The decoder before its tuning
// measured 1.3-2.2 GB/s into shared memory here (bench/README.md).
// Prints the medians of plain MB/s and the ratio, and checks both outputs byte for byte.
// Run after tsc: node dist/bench/lz4-decode.js [--mib 128] [--rounds 9]
import { hash } from 'node:crypto';
import os from 'node:os';
import { compressSync, uncompressSync } from 'lz4-napi';
import { lz4Decode, lz4PlainSize } from '../harness/store/read/lz4-block.js';
import { keptCompressed } from '../harness/store/pack.js';
import { benchArgs } from './args.js';
import { median, msSince } from './measure.js';
import { ramLike } from './ram-like.js';

const { values } = benchArgs(
  'lz4-decode',
  "LZ4 block decode MB/s on one core, lz4-napi (native) beside the store's decoder, on RAM-like 64 KiB blocks.",
  { mib: 'MiB of RAM-like data (before dedup)', rounds: 'rounds of each decoder; medians are reported' },
  { options: { mib: { type: 'string', default: '128' }, rounds: { type: 'string', default: '9' } } },
);
const PAGE = 4096;
const data = ramLike(Number(values.mib) << 20);
const rounds = Number(values.rounds);

/** The LZ4 blocks a store would write for `data`: distinct pages, 16 to a block, those that shrink by 1/8. */
function lz4Blocks(plain: Buffer): Buffer[] {
  const seen = new Set<string>();
  const blocks: Buffer[] = [];
  let pages: Buffer[] = [];
  const flush = (): void => {
    const raw = Buffer.concat(pages);
    const z = compressSync(raw);
    if (keptCompressed(raw.length, z.length)) blocks.push(z);
    pages = [];
  };
  for (let o = 0; o < plain.length; o += PAGE) {
    const page = plain.subarray(o, o + PAGE);
    const h = hash('sha1', page, 'hex');
    if (seen.has(h)) continue;
    seen.add(h);
    pages.push(page);
    if (pages.length === 16) flush();
  }
  if (pages.length > 0) flush();
  return blocks;
}

type Decoder = (src: Uint8Array, dst: Uint8Array, at: number, want: number) => number;
/** lz4-napi's decoder in the same shape (same block format: the plain size as a u32le, then the block). */
const native: Decoder = (src, dst, at, want) => {
  dst.set(uncompressSync(src).subarray(0, want), at);
  return want;
};
const blocks = lz4Blocks(data);
const total = blocks.reduce((n, z) => n + lz4PlainSize(z), 0);

/** Decode every block one after another into `out`; the wall ms (one core: nothing else runs on this thread). */
function decodeAll(decode: Decoder, out: Uint8Array): number {
  const t = process.hrtime.bigint();
  let at = 0;
  for (const z of blocks) {
    const n = lz4PlainSize(z);
    if (decode(z, out, at, n) !== n) throw new Error(`a block did not decode at ${at}`);
    at += n;
  }
  return msSince(t);
}

const shared = (): Uint8Array => new Uint8Array(new SharedArrayBuffer(total));
const plain = (): Uint8Array => new Uint8Array(total);
/** Each row: its name, its decoder, its output (shared as the read pool's slots; a plain ArrayBuffer as a block that does not fit one). */
const decoders: Array<[string, Decoder, Uint8Array]> = [
  ['lz4-napi (native, allocating), shared', native, shared()],
  ['lz4-block.ts, shared', lz4Decode, shared()],
  ['lz4-napi (native, allocating), plain', native, plain()],
  ['lz4-block.ts, plain', lz4Decode, plain()],
];
const ms: number[][] = decoders.map(() => []);
const load0 = os.loadavg()[0]!;
for (let r = 0; r < rounds + 1; r++) {
  for (let d = 0; d < decoders.length; d++) {
    const took = decodeAll(decoders[d]![1], decoders[d]![2]);
    if (r > 0) ms[d]!.push(took); // round 0: warm-up (JIT, first touch of the output pages)
  }
}
for (const [name, , out] of decoders.slice(1))
  if (Buffer.compare(decoders[0]![2], out) !== 0) throw new Error(`${name} disagrees with lz4-napi`);
const mbps = (m: number): number => total / 1e3 / m;
console.log(
  `LZ4 decode of ${blocks.length} blocks (${(total / 2 ** 20).toFixed(1)} MiB plain, ` +
    `${(blocks.reduce((n, z) => n + z.length, 0) / 2 ** 20).toFixed(1)} MiB LZ4) on one core, medians of ${rounds}`,
);
console.log('| decoder, output | ms per pass | plain MB/s | vs lz4-napi (same output) |');
console.log('|---|---:|---:|---:|');
for (let d = 0; d < decoders.length; d++) {
  const m = median(ms[d]!);
  console.log(
    `| ${decoders[d]![0]} | ${m.toFixed(1)} | ${mbps(m).toFixed(0)} | ${(median(ms[d & 2]!) / m).toFixed(2)}x |`,
  );
}
console.log(
  `load average ${load0.toFixed(2)} before, ${os
    .loadavg()
    .map((x) => x.toFixed(2))
    .join(' ')} after, on ${os.cpus().length} cores`,
);
