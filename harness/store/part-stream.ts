// A part's bytes read back fast: its chunk list walked in windows of ~1 MiB, the next few windows fetched (read,
// decompressed and hash-checked on the read pool) while the current one is copied out; a chunk that repeats within the
// read is checked once and kept until its last use.
import { IntegrityError } from '../core/errors.js';
import { ChunkFetcher, type Slot } from './chunk-fetch.js';
import { createHash } from 'node:crypto';
import type { PartEntry } from './manifest.js';
import type { PackReader } from './pack-reader.js';
import { Batcher, ChunkCursor, digestMismatch, firstPage, PIECE, pageMap } from './part-reader.js';
import type { ReadPool } from './read-pool.js';

/** Chunks a window holds at least (then up to the end of the block it is in). */
const WINDOW = 256;
/** Windows fetched ahead of the one being copied out. */
const AHEAD = 4;

/** What one read did: chunks handed out and SHA-256 computations (fewer when chunks repeat). */
export interface ReadCounts {
  chunks: number;
  hashed: number;
}

/** Cut `seq` into windows of >= WINDOW chunks, each ending where the next chunk lies in another stored block. */
function windows(packs: PackReader, seq: readonly string[]): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  const place = (h: string | undefined): string => {
    const l = h === undefined ? undefined : packs.locate(h);
    return l === undefined ? '' : `${l.pack}:${l.offset}`;
  };
  for (let a = 0; a < seq.length;) {
    let b = Math.min(a + WINDOW, seq.length);
    const last = place(seq[b - 1]);
    while (b < seq.length && b - a < 2 * WINDOW && place(seq[b]) === last && last !== '') b++;
    out.push([a, b]);
    a = b;
  }
  return out;
}

/**
 * The bytes of part `p` in ~1 MiB pieces (`reuse`: two buffers cycled, see Batcher), every chunk hash-checked once.
 * `counts` is filled in as the read goes.
 */
export async function* partStream(
  packs: PackReader,
  pool: ReadPool,
  p: PartEntry,
  reuse: boolean,
  counts: ReadCounts = { chunks: 0, hashed: 0 },
): AsyncGenerator<Buffer> {
  const fetcher = new ChunkFetcher(packs, pool);
  const kept = new Map<string, Buffer>();
  const known = (h: string): Buffer | undefined => kept.get(h);
  let cursor: ChunkCursor | undefined;
  let map: number[] = [];
  let seq = p.chunks;
  if (p.layout) {
    const head = p.chunks.slice(0, firstPage(p));
    const got = await fetcher.fetch(head, known);
    const reader = { readChunk: (h: string): Buffer => got.get(h)! };
    map = pageMap(reader, p);
    cursor = new ChunkCursor(reader, head.slice(0, p.layout.metaChunks));
    seq = p.chunks.slice(firstPage(p));
  }
  // chunks met more than once are kept from their first window to their last use
  const left = new Map<string, number>();
  for (const h of seq) left.set(h, (left.get(h) ?? 0) + 1);
  for (const [h, n] of left) if (n < 2) left.delete(h);
  const scheduled = new Set<string>();
  const plan = windows(packs, seq);
  // a window's bytes live in slot w % slots.length until the window after the next AHEAD is fetched
  const slots: Slot[] = Array.from({ length: AHEAD + 1 }, () => ({ buf: new SharedArrayBuffer(0) }));
  const fetchWindow = (w: number): Promise<Map<string, Buffer>> => {
    const [a, b] = plan[w]!;
    const todo: string[] = [];
    for (let i = a; i < b; i++) {
      const h = seq[i]!;
      if (!left.has(h)) todo.push(h);
      else if (!scheduled.has(h)) {
        scheduled.add(h);
        todo.push(h);
      }
    }
    const pending = fetcher.fetch(todo, known, slots[w % slots.length]);
    pending.catch(() => {}); // awaited in turn below; a failure ahead of the reader must not go unhandled first
    return pending;
  };
  const inFlight: Array<Promise<Map<string, Buffer>>> = [];
  const out = new Batcher(reuse);
  const what = `part "${p.name}"`;
  // the piece a page's meta bytes filled (at most one when they are at most a piece), handed out before the page
  let metaPiece: Buffer | undefined;
  const meta = (view: Buffer): void => {
    const full = out.push(view);
    if (full !== undefined) metaPiece = full;
  };
  try {
    for (let w = 0; w < plan.length; w++) {
      while (inFlight.length < AHEAD && w + inFlight.length < plan.length)
        inFlight.push(fetchWindow(w + inFlight.length));
      const got = await inFlight.shift()!;
      for (const [h, bytes] of got) if (left.has(h)) kept.set(h, Buffer.from(bytes));
      const [a, b] = plan[w]!;
      for (let i = a; i < b; i++) {
        const h = seq[i]!;
        const bytes = got.get(h) ?? kept.get(h);
        if (bytes === undefined) throw new IntegrityError(`${what}: chunk ${h} was not fetched (a read-back bug)`);
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
        const n = left.get(h);
        if (n === undefined) continue;
        if (n > 1) left.set(h, n - 1);
        else {
          left.delete(h);
          kept.delete(h);
        }
      }
    }
    if (cursor) for (const m of cursor.rest()) for (const piece of out.write(m)) yield piece;
    for (const piece of out.flush()) yield piece;
  } finally {
    counts.hashed = fetcher.hashed;
  }
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
