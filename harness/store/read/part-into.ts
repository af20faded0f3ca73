// A part written into an open file at its own offsets (a guest's RAM image into QEMU's memfd). When every chunk is
// stored whole in a pack, the read pool's threads read, decompress and hash-check each distinct chunk once and write it
// straight to every offset it has (nothing crosses back to this thread but a count); otherwise (deltas, chunks only
// the slow read finds, a warm cache) windows of chunks are fetched ahead as the stream read does and each run of
// consecutive chunks is written with one writev. Into a file that holds no data (every page a hole, so every byte reads
// as zero), an all-zero 4 KiB chunk is not read or written at all: its name says what it holds. Nothing is written
// that did not check.
import { fstatSync, writevSync } from 'node:fs';
import { IntegrityError } from '../../core/errors.js';
import { CHUNK_SIZE } from '../chunking/ingest.js';
import type { PartEntry } from '../manifest.js';
import { ZERO_PAGE_SHA256 } from '../sha256.js';
import { ChunkFetcher, type ChunkCache, inOrder, planBlockJob, type Slot } from './chunk-fetch.js';
import { AHEAD, fetchedWindows, type ReadCounts } from './part-stream.js';
import type { PackReader } from './pack-reader.js';
import { PartPlan, SLOW } from './part-plan.js';
import type { ReadPool } from './read-pool.js';

/** Buffers one writev takes at most (Linux's IOV_MAX). */
const IOV_MAX = 1024;

/** What writing a part did: chunks checked and written, and zero chunks left as holes. */
export interface IntoCounts extends ReadCounts {
  /** Chunks not read or written: all zeros, into a file whose every byte already reads as zero. */
  holes: number;
}

/** Whether the open file `fd` holds no data block (a fresh memfd or sparse file: every byte reads as zero). */
export function holdsNoData(fd: number): boolean {
  return fstatSync(fd).blocks === 0;
}

/**
 * Write part `p` (a plain part: chunks concatenated, not page-split) into `fd` from offset 0; returns the bytes it
 * covers (its logical size). A zero chunk is skipped only if `fd` holds no data when the write begins.
 */
export async function partInto(
  packs: PackReader,
  pool: ReadPool,
  p: PartEntry,
  fd: number,
  counts: IntoCounts = { chunks: 0, hashed: 0, holes: 0 },
  cache?: ChunkCache,
): Promise<number> {
  const what = `part "${p.name}"`;
  if (p.layout) throw new IntegrityError(`${what} is page-split: it is read as a stream, not written at offsets`);
  const skipZero = holdsNoData(fd);
  const plan = new PartPlan(packs, p.chunks);
  const { ids, last } = plan;
  const zero = skipZero ? plan.hashes.indexOf(ZERO_PAGE_SHA256) : -1;
  if (cache === undefined && storedWhole(plan)) return writeDirect(packs, pool, plan, p, fd, zero, counts);
  const fetcher = new ChunkFetcher(packs, pool, plan, cache);
  const views = fetcher.views;
  const slots = Array.from({ length: AHEAD + 1 }, (): Slot => ({ buf: new SharedArrayBuffer(0) }));
  let at = 0;
  let run: Buffer[] = [];
  let runAt = 0;
  const flush = (): void => {
    if (run.length > 0) writeAllAt(fd, run, runAt, what);
    run = [];
  };
  try {
    for await (const [a, b] of fetchedWindows(fetcher, plan, slots, zero)) {
      for (let i = a; i < b; i++) {
        const d = ids[i]!;
        if (d === zero) {
          flush();
          at += CHUNK_SIZE;
          counts.holes++;
          counts.chunks++;
          continue;
        }
        const bytes = views[d];
        if (bytes === undefined)
          throw new IntegrityError(`${what}: chunk ${plan.hashes[d]} was not fetched (a read-back bug)`);
        if (run.length === 0) runAt = at;
        run.push(bytes);
        if (run.length === IOV_MAX) flush();
        at += bytes.length;
        counts.chunks++;
        if (last[d] === i) views[d] = undefined;
      }
      flush(); // before the next window: its slot may be refilled once this one's bytes are out
    }
  } finally {
    counts.hashed += fetcher.hashed;
    counts.cached = (counts.cached ?? 0) + fetcher.cached;
  }
  if (at !== p.size) throw new IntegrityError(`${what}: its chunks cover ${at} bytes, its manifest says ${p.size}`);
  return at;
}

/** writev `bufs` at `pos` until all is written (a short write is resumed). */
function writeAllAt(fd: number, bufs: Buffer[], pos: number, what: string): void {
  let rest = bufs;
  let off = pos;
  for (;;) {
    const total = rest.reduce((n, b) => n + b.length, 0);
    const n = writevSync(fd, rest, off);
    if (n === total) return;
    if (n <= 0) throw new Error(`${what}: writing at ${off} wrote nothing`);
    off += n;
    let skip = n;
    const next: Buffer[] = [];
    for (const b of rest) {
      if (skip >= b.length) skip -= b.length;
      else {
        next.push(skip > 0 ? b.subarray(skip) : b);
        skip = 0;
      }
    }
    rest = next;
  }
}

/** Whether every chunk of the plan is located in a pack and stored whole (not as a delta). */
function storedWhole(plan: PartPlan): boolean {
  for (let d = 0; d < plan.hashes.length; d++) if (plan.pack[d] === SLOW || plan.base[d]! >= 0) return false;
  return true;
}

/** Distinct chunks one job of writeDirect fetches (~1 MiB of 4 KiB chunks). */
const BATCH = 256;

/**
 * The direct way (every chunk stored whole): the part's offsets computed from the stored sizes first (a part whose
 * chunks do not add up to its size is refused before anything is written), then batches of distinct chunks handed
 * to the read pool with the offsets each goes to; a chunk a worker found bad is read again here, which throws the
 * IntegrityError naming its pack (or, the fault gone, writes it).
 */
async function writeDirect(
  packs: PackReader,
  pool: ReadPool,
  plan: PartPlan,
  p: PartEntry,
  fd: number,
  zero: number,
  counts: IntoCounts,
): Promise<number> {
  const what = `part "${p.name}"`;
  const { ids } = plan;
  const n = ids.length;
  const distinct = plan.hashes.length;
  // each distinct chunk's offsets, together (CSR: chunk d's are at[from[d]] up to at[from[d + 1]])
  const from = new Int32Array(distinct + 1);
  for (let i = 0; i < n; i++) from[ids[i]! + 1]!++;
  for (let d = 0; d < distinct; d++) from[d + 1]! += from[d]!;
  const at = new Float64Array(n);
  const filled = from.slice(0, distinct);
  let size = 0;
  for (let i = 0; i < n; i++) {
    const d = ids[i]!;
    at[filled[d]!++] = size;
    size += plan.raw[d]!;
  }
  if (size !== p.size)
    throw new IntegrityError(`${what}: its chunks add up to ${size} bytes, its manifest says ${p.size}`);
  // chunks are numbered in the order of their first use: batches follow the part from its start
  const todo: number[] = [];
  for (let d = 0; d < distinct; d++) if (d !== zero) todo.push(d);
  const runBatch = async (list: number[]): Promise<void> => {
    if (!inOrder(plan, list)) list.sort((d, e) => plan.pack[d]! - plan.pack[e]! || plan.offset[d]! - plan.offset[e]!);
    const { job, starts } = planBlockJob(plan, list);
    const destFrom = new Int32Array(list.length + 1);
    for (let k = 0; k < list.length; k++) {
      const d = list[k]!;
      destFrom[k + 1] = destFrom[k]! + from[d + 1]! - from[d]!;
    }
    const destAt = new Float64Array(destFrom[list.length]!);
    for (let k = 0; k < list.length; k++) {
      const d = list[k]!;
      destAt.set(at.subarray(from[d], from[d + 1]), destFrom[k]);
    }
    const r = await pool.run({ ...job, dest: { fd, at: destAt, from: destFrom } });
    counts.hashed += r.hashed;
    if (r.writeError !== undefined) throw new Error(`writing ${what} into its file: ${r.writeError}`);
    for (let j = 0; j < r.bad.length; j += 2) {
      const block = r.bad[j]!;
      const k = r.bad[j + 1]!;
      const first = k < 0 ? starts[block]! : starts[block]! + k;
      const end = k < 0 ? starts[block + 1]! : first + 1;
      for (let c = first; c < end; c++) {
        const d = list[c]!;
        const bytes = packs.readChunk(plan.hashes[d]!); // throws the IntegrityError that names the pack
        for (let q = from[d]!; q < from[d + 1]!; q++) writeAllAt(fd, [bytes], at[q]!, what);
      }
    }
  };
  // in order, AHEAD at a time; after a failure every job still running ends before this returns (the caller closes fd)
  const pending: Array<Promise<void>> = [];
  try {
    for (let b = 0; b < todo.length; b += BATCH) {
      const job = runBatch(todo.slice(b, b + BATCH));
      job.catch(() => {}); // awaited in turn below
      pending.push(job);
      if (pending.length >= AHEAD) await pending.shift();
    }
    await Promise.all(pending);
  } catch (err) {
    await Promise.allSettled(pending);
    throw err;
  }
  counts.chunks += n;
  if (zero >= 0) counts.holes += from[zero + 1]! - from[zero]!;
  return size;
}
