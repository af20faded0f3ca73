// A part's bytes read back fast: its chunk list walked in windows of ~1 MiB, the next few windows fetched (read,
// decompressed and hash-checked on the read pool) while the current one is copied out; a chunk that repeats within the
// read is checked once and kept until its last use.
import { IntegrityError } from '../../core/errors.js';
import { ChunkFetcher, type Slot } from './chunk-fetch.js';
import { PartPlan } from './part-plan.js';
import { createHash } from 'node:crypto';
import type { PartEntry } from '../manifest.js';
import type { PackReader } from './pack-reader.js';
import { Batcher, ChunkCursor, digestMismatch, firstPage, PIECE, pageMap } from './part-reader.js';
import type { ReadPool } from './read-pool.js';
import type { ChunkCache } from './chunk-fetch.js';

/** Chunks a window holds at least (then up to the end of the block it is in). */
const WINDOW = 256;
/** Windows fetched ahead of the one being copied out. */
export const AHEAD = 4;
/**
 * Slot sets kept from one read to the next (their pages already touched: a fresh 1 MiB pays its page faults again,
 * bench/README.md). Only a read that ran to its end gives its set back (one left early may have a worker still writing into it).
 */
const SPARE_SLOT_SETS = 1;
const spareSlots: Slot[][] = [];

/** How many slot sets wait for the next read (for tests of the rule above). */
export const spareSlotSets = (): number => spareSlots.length;

/** What one read did: chunks handed out and SHA-256 computations (fewer when chunks repeat). */
export interface ReadCounts {
  chunks: number;
  hashed: number;
  /** Distinct chunks served from a cache of checked chunks (warm-chunks.ts) instead of the store. */
  cached?: number;
}

/**
 * The bytes of part `p` in ~1 MiB pieces (`reuse`: reused buffers, see Batcher), every chunk hash-checked once.
 * `counts` is filled in as the read goes.
 */
export async function* partStream(
  packs: PackReader,
  pool: ReadPool,
  p: PartEntry,
  reuse: boolean,
  counts: ReadCounts = { chunks: 0, hashed: 0 },
  cache?: ChunkCache,
): AsyncGenerator<Buffer> {
  let hashed = 0;
  let cached = 0;
  let cursor: ChunkCursor | undefined;
  let map: number[] = [];
  let seq = p.chunks;
  if (p.layout) {
    const head = p.chunks.slice(0, firstPage(p));
    const got = await fetchAll(packs, pool, head, cache);
    hashed += got.hashed;
    cached += got.cached;
    const reader = { readChunk: (h: string): Buffer => got.bytes.get(h)! };
    map = pageMap(reader, p);
    cursor = new ChunkCursor(reader, head.slice(0, p.layout.metaChunks));
    seq = p.chunks.slice(firstPage(p));
  }
  const plan = new PartPlan(packs, seq);
  const { ids, last } = plan;
  const fetcher = new ChunkFetcher(packs, pool, plan, cache);
  const views = fetcher.views;
  // a window's bytes live in slot w % slots.length until the window after the next AHEAD is fetched
  const slots = spareSlots.pop() ?? Array.from({ length: AHEAD + 1 }, (): Slot => ({ buf: new SharedArrayBuffer(0) }));
  const out = new Batcher(reuse);
  const what = `part "${p.name}"`;
  // the piece a page's meta bytes filled (at most one when they are at most a piece), handed out before the page
  let metaPiece: Buffer | undefined;
  const meta = (view: Buffer): void => {
    const full = out.push(view);
    if (full !== undefined) metaPiece = full;
  };
  try {
    for await (const [a, b] of fetchedWindows(fetcher, plan, slots)) {
      for (let i = a; i < b; i++) {
        const d = ids[i]!;
        const bytes = views[d];
        if (bytes === undefined)
          throw new IntegrityError(`${what}: chunk ${plan.hashes[d]} was not fetched (a read-back bug)`);
        // no generator per chunk: Batcher.push fills at most one piece per call (chunks are far below a piece)
        const m = cursor === undefined ? 0 : map[i]!;
        if (m > PIECE) for (const v of cursor!.take(m, what)) for (const piece of out.write(v)) yield piece;
        else if (m > 0) {
          cursor!.takeEach(m, what, meta); // at most one piece boundary in up to a piece's bytes
          if (metaPiece !== undefined) yield metaPiece;
          metaPiece = undefined;
        }
        if (bytes.length > PIECE) for (const piece of out.write(bytes)) yield piece;
        else {
          const full = out.push(bytes);
          if (full !== undefined) yield full;
        }
        counts.chunks++;
        if (last[d] === i) views[d] = undefined;
      }
    }
    if (cursor) for (const m of cursor.rest()) for (const piece of out.write(m)) yield piece;
    for (const piece of out.flush()) yield piece;
    // every window is in: no worker writes into the slots any more, so the next read may have them
    if (spareSlots.length < SPARE_SLOT_SETS) spareSlots.push(slots);
  } finally {
    counts.hashed = hashed + fetcher.hashed;
    counts.cached = cached + fetcher.cached;
  }
}

/**
 * The windows of `plan`'s list (at least WINDOW chunks each), fetched through `fetcher` AHEAD ahead into `slots` (window
 * w in slot w % slots.length): yields each window's [start, end) once its chunks are in `fetcher.views`. Each chunk is
 * fetched in the window of its first use (never `skip`); one used again in a later window is copied out of its slot
 * and kept until its last use (the caller clears a view then).
 */
export async function* fetchedWindows(
  fetcher: ChunkFetcher,
  plan: PartPlan,
  slots: Slot[],
  skip = -1,
): AsyncGenerator<[number, number]> {
  const { last } = plan;
  const views = fetcher.views;
  const ends = plan.windows(WINDOW);
  const startOf = (w: number): number => (w === 0 ? 0 : ends[w - 1]!);
  const fetchWindow = async (w: number): Promise<void> => {
    const b = ends[w]!;
    const first = plan.firstUses(startOf(w), b);
    const todo = skip < 0 ? first : first.filter((d) => d !== skip);
    await fetcher.fetch(todo, slots[w % slots.length]);
    for (const d of todo) {
      const v = views[d];
      if (last[d]! >= b && v !== undefined && v.buffer instanceof SharedArrayBuffer) views[d] = Buffer.from(v);
    }
  };
  const inFlight: Array<Promise<void>> = [];
  for (let w = 0; w < ends.length; w++) {
    while (inFlight.length < AHEAD && w + inFlight.length < ends.length) {
      const pending = fetchWindow(w + inFlight.length);
      pending.catch(() => {}); // awaited in turn below; a failure ahead of the reader must not go unhandled first
      inFlight.push(pending);
    }
    await inFlight.shift();
    yield [startOf(w), ends[w]!];
  }
}

/** Every chunk of `list` fetched and checked, each in a buffer of its own (a page-split part's meta and map chunks). */
async function fetchAll(
  packs: PackReader,
  pool: ReadPool,
  list: readonly string[],
  cache?: ChunkCache,
): Promise<{ bytes: Map<string, Buffer>; hashed: number; cached: number }> {
  const plan = new PartPlan(packs, list);
  const fetcher = new ChunkFetcher(packs, pool, plan, cache);
  const todo = plan.firstUses(0, list.length);
  await fetcher.fetch(todo);
  const bytes = new Map<string, Buffer>();
  for (const d of todo) bytes.set(plan.hashes[d]!, fetcher.views[d]!);
  return { bytes, hashed: fetcher.hashed, cached: fetcher.cached };
}

/**
 * `pieces` passed through while hashed, the last one held back until the whole matched `sha256` (absent: passed
 * unchecked, as older manifests have no part digest): a consumer sees a mismatch before it has the whole part. For
 * reads that do not check each chunk as the fast read does (a test's ChunkReader double).
 */
export async function* checkedStream(
  pieces: AsyncIterable<Buffer> | Iterable<Buffer>,
  sha256: string | undefined,
  what: string,
): AsyncGenerator<Buffer> {
  if (sha256 === undefined) {
    yield* pieces;
    return;
  }
  const whole = createHash('sha256');
  let held: Buffer | undefined;
  for await (const piece of pieces) {
    whole.update(piece);
    if (held !== undefined) yield held;
    held = piece;
  }
  const got = whole.digest('hex');
  if (got !== sha256) throw digestMismatch(what, got, sha256);
  if (held !== undefined) yield held;
}
