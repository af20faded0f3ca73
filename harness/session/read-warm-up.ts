// A pool host's warm-up of the store's read path on bytes of its own, nothing of any session: the read pool's threads
// started and their code compiled, the slot buffers a read keeps for the next one touched, so that the first restore
// from the store does not pay for them (a fresh process's first read is its slowest: bench/README.md "resume-floor").
import { closeSync, ftruncateSync, mkdtempSync, openSync, rmSync } from 'node:fs';
import path from 'node:path';
import { compressSync } from 'lz4-napi';
import { lz4Decode } from '../store/read/lz4-block.js';
import { Store } from '../store/store.js';

const WORDS = ['the', 'session', 'agent', 'checkpoint', 'restore', 'kernel', 'page', 'store', 'chunk', 'verified'];

/**
 * `bytes` of RAM-like pages, from seed `seed`, in groups of 64 pages shaped as a guest's RAM is: text pages (words from
 * a short list, so LZ4 finds short and long matches and literal runs alike, as in a guest's page cache and heaps) with
 * a random page one in eight and single zero pages among them (blocks LZ4 keeps), a run of 20 random pages (blocks
 * stored raw: they do not shrink), a run of 12 zero pages (holes in a memfd), and 4 copies of the last random page (a
 * chunk written to several offsets); and the last 384 of every 1,024 pages zero (a long run, whose chunk list leaves
 * compress). `firstPage`: the number of the first page, for bytes that replace part of a longer image. The read path's
 * code is compiled for the shapes it meets: a branch the warm-up never takes is compiled on the first restore that
 * does, on its clock (bench/README.md "resume-floor").
 */
export function pageLike(bytes: number, seed = 0x9e3779b9, firstPage = 0): Buffer {
  const out = Buffer.alloc(bytes);
  let x = seed | 1;
  const next = (): number => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return x >>> 0;
  };
  for (let at = 0; at < bytes; at += 4096) {
    const page = firstPage + at / 4096;
    const kind = page % 64;
    if (kind % 16 === 0 || (kind >= 40 && kind < 52) || page % 1024 >= 640) continue; // zero: single pages and runs
    const from = at - 4096 * (kind - 39); // copies of page 39 of the group (random), when these bytes hold it
    if (kind >= 52 && kind < 56 && from >= 0) {
      out.copy(out, at, from, from + 4096);
      continue;
    }
    if (kind % 8 === 1 || (kind >= 20 && kind < 40)) {
      for (let i = at; i < at + 4096; i += 4) out.writeUInt32LE(next(), i);
      continue;
    }
    for (let i = at; i < at + 4096;) {
      const w = next();
      const word = w % 7 === 0 ? String(w % 100_000) : WORDS[w % WORDS.length]!;
      i += out.write(`${word} `, i, Math.min(word.length + 1, at + 4096 - i), 'latin1');
    }
  }
  return out;
}

/** `ram` with every fourth 64 KiB changed (fresh pages from `seed`): a later checkpoint shares the rest with it. */
function changed(ram: Buffer, seed: number): Buffer {
  const out = Buffer.from(ram);
  for (let at = 0; at < ram.length; at += 4 << 16)
    pageLike(Math.min(1 << 16, ram.length - at), seed + at, at / 4096).copy(out, at);
  return out;
}

/**
 * Reads of the warm-up checkpoint: V8 compiles a hot function's optimised code only after enough calls, on a background
 * thread; with two reads the block job, the part plan and the direct write were still compiled during the first
 * restore, on its clock and its cores (a memfd RAM step p50 121-131 ms against 79-85 ms after six: bench/README.md
 * "resume-floor", 2026-12-06).
 */
const WARM_ROUNDS = 6;

/**
 * Blocks of every shape this thread's LZ4 decoder's branches take (lz4-block.ts: reads of single chunks, such as a
 * checkpoint's chunk list, go through it): text with random pages, zero runs and copies; long runs of one byte (a
 * device state's zeros); a 32-byte pattern repeated (a chunk list's run of zero pages) between distinct ones.
 */
export function decoderShapes(): Buffer[] {
  const pattern = pageLike(4096, 11).subarray(0, 32);
  return [
    pageLike(64 << 10, 7),
    Buffer.concat([Buffer.alloc(9000, 0), pageLike(8 << 10, 3), Buffer.alloc(20_000, 0xff)]),
    Buffer.concat(
      Array.from({ length: 512 }, (_, i) => (i % 8 < 5 ? pattern : pageLike(4096, i + 1).subarray(64, 96))),
    ),
  ];
}

/** Decode each shape, compressed as a pack keeps a block, into plain and shared memory; throws on a wrong result. */
function warmDecoder(): void {
  const shapes = decoderShapes().map((plain) => ({ plain, block: compressSync(plain) }));
  const outs = [Buffer.alloc(64 << 10), new Uint8Array(new SharedArrayBuffer(64 << 10))];
  for (let round = 0; round < WARM_ROUNDS * 20; round++)
    for (const { plain, block } of shapes) {
      const out = outs[round % 2]!;
      if (
        lz4Decode(block, out, 0, plain.length) !== plain.length ||
        Buffer.compare(plain, out.subarray(0, plain.length)) !== 0
      )
        throw new Error('read warm-up: the LZ4 decoder did not give back what lz4-napi compressed');
    }
}

/**
 * Write the warm-up's two checkpoints of `mib` MiB of page-like bytes into store folder `dir` (pageLike; the second
 * shares three quarters of its chunks with the first, so its chunks lie in two packs out of order, as a restored
 * session's do).
 */
export async function writeWarmUpStore(dir: string, mib: number): Promise<void> {
  const s = Store.open(dir, { purpose: 'read warm-up' });
  try {
    const first = pageLike(mib << 20);
    for (const [step, ram] of [
      [1, first],
      [2, changed(first, 0x2545f491)],
    ] as const) {
      const w = s.begin(step);
      await w.put('ram', ram);
      w.commit();
    }
  } finally {
    s.close();
  }
}

/**
 * On a scratch store (writeWarmUpStore), WARM_ROUNDS times: open it afresh, resolve its newest checkpoint (its location
 * index, as a restore's first step does), read it as a stream (a migration stream's restore) and write it into a
 * sparse file at its offsets (a RAM image's restore into a memfd); and this thread's LZ4 decoder on decoderShapes().
 */
export async function warmReadPath(scratchDir: string, mib = 16): Promise<void> {
  warmDecoder();
  const dir = mkdtempSync(path.join(scratchDir, 'read-warm-up-'));
  try {
    await writeWarmUpStore(dir, mib);
    for (let round = 0; round < WARM_ROUNDS; round++) {
      const r = Store.open(dir, { purpose: 'read warm-up' });
      try {
        const m = r.latest();
        if (m !== null) {
          for await (const _ of r.reader(m).stream('ram', { reuse: true }));
          const image = path.join(dir, 'image');
          const fd = openSync(image, 'w+');
          try {
            ftruncateSync(fd, mib << 20); // a file that holds no data, as a fresh QEMU's memfd
            await r.reader(m).writeInto('ram', fd);
          } finally {
            closeSync(fd);
            rmSync(image, { force: true });
          }
        }
      } finally {
        r.close();
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
