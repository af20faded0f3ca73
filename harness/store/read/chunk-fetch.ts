// Fetching a batch of a part's chunks (by their numbers in its PartPlan): their stored blocks read in a few large reads,
// decompressed and hash-checked, all on the read pool's threads, deltas rebuilt from bases fetched in the same batch.
// Anything that does not check out is read again through PackReader.readChunk, which throws the IntegrityError naming
// the pack and chunk.
import { BLOCK_FIELDS, type BlockJob, type BlockResult } from './block-job.js';
import { applyDelta } from '../chunking/delta.js';
import type { PackReader } from './pack-reader.js';
import { type PartPlan, SLOW } from './part-plan.js';
import type { ReadPool } from './read-pool.js';
import { sha256 } from '../sha256.js';

/** Reads of one pack merge across gaps of at most this many bytes, up to MAX_RANGE bytes a read. */
const MAX_GAP = 64 * 1024;
const MAX_RANGE = 8 << 20;

/** Checked chunk bytes by hash, for ChunkFetcher: a chunk held here is not read again. */
export interface ChunkCache {
  get(hash: string): Buffer | undefined;
  /** A part's bytes whole (assembled from checked chunks), by the part digest its manifest records. */
  whole?(name: string, sha256: string | undefined): Buffer | undefined;
}

/** A reusable buffer a batch's plain bytes land in (shared with the workers, so nothing is copied back). */
export interface Slot {
  buf: SharedArrayBuffer;
  /** A Buffer over all of `buf` (made again when `buf` grows): chunk views are cut from it. */
  view?: Buffer;
}

/** Fetches hash-checked chunks of one plan in batches; counts the hashes it computes. */
export class ChunkFetcher {
  /** SHA-256 computations so far: one per distinct chunk fetched (a chunk already in `views` is not fetched again). */
  hashed = 0;
  /**
   * Each chunk's checked bytes by number, set by fetch() for the chunks it was asked for; the caller clears an entry
   * when done with it. A view into a slot is valid until the caller hands that slot to another fetch.
   */
  readonly views: Array<Buffer | undefined>;
  /** The batch (2 * its number) whose own list held each chunk: set once, as each chunk is first used in one window. */
  private readonly mark: Int32Array;
  /**
   * The batch that last fetched each chunk only as a delta's base. Kept apart from `mark`: a batch started ahead while
   * an earlier one is in flight must not take over that one's chunk (it then never reached `views`: a restore failed
   * with "chunk ... was not fetched").
   */
  private readonly baseMark: Int32Array;
  private batch = 0;
  /** Chunks served from `cache` instead of the store. */
  cached = 0;

  /** `cache`: checked chunks held in memory (a warm standby's, warm-chunks.ts); one it holds is not read. */
  constructor(
    private readonly packs: PackReader,
    private readonly pool: ReadPool,
    private readonly plan: PartPlan,
    private readonly cache?: ChunkCache,
  ) {
    this.views = new Array<Buffer | undefined>(plan.hashes.length);
    this.mark = new Int32Array(plan.hashes.length).fill(-1);
    this.baseMark = new Int32Array(plan.hashes.length).fill(-1);
  }

  /**
   * Fetch chunks `todo` (numbers, each once) into `views`. With a `slot`, their bytes land in its buffer (grown as
   * needed), valid until the caller hands the slot out again; without, each block gets a buffer of its own.
   */
  async fetch(todo: readonly number[], slot?: Slot): Promise<void> {
    const plan = this.plan;
    const asked = 2 * ++this.batch;
    const list: number[] = [];
    const slow: number[] = [];
    const deltas: number[] = [];
    const cache = this.cache;
    for (const d of todo) {
      this.mark[d] = asked;
      const held = cache?.get(plan.hashes[d]!);
      if (held !== undefined) {
        this.views[d] = held;
        this.cached++;
        continue;
      }
      if (plan.pack[d] === SLOW) slow.push(d);
      else list.push(d);
    }
    for (let k = 0, n = list.length; k < n; k++) {
      const d = list[k]!;
      const b = plan.base[d]!;
      if (b < 0) continue;
      deltas.push(d);
      // its base comes in the same batch unless this read holds it already (a chunk kept for a later use)
      // (its own mark is never overwritten: an earlier batch still in flight may be fetching it for its own list)
      const baseHeld = this.views[b] !== undefined || cache?.get(plan.hashes[b]!) !== undefined;
      if (this.mark[b]! !== asked && this.baseMark[b]! !== asked && !baseHeld) {
        this.baseMark[b] = asked;
        list.push(b);
      }
    }
    if (!inOrder(plan, list)) list.sort((d, e) => plan.pack[d]! - plan.pack[e]! || plan.offset[d]! - plan.offset[e]!);
    const { job, starts, plain } = planBlockJob(this.plan, list);
    if (slot !== undefined && slot.buf.byteLength < plain) {
      slot.buf = new SharedArrayBuffer(plain + (1 << 20));
      slot.view = undefined;
    }
    if (slot !== undefined) job.out = slot.buf;
    const result: BlockResult =
      starts.length > 1 ? await this.pool.run(job) : { id: -1, places: new Int32Array(0), own: [], bad: [], hashed: 0 };
    this.hashed += result.hashed;
    const bad = result.bad.length > 0 ? this.badChunks(result, list, starts) : undefined;
    const whole = slot === undefined ? undefined : (slot.view ??= Buffer.from(slot.buf));
    // bases fetched only for this batch's deltas, and the delta forms (their bytes are rebuilt below)
    const local = deltas.length > 0 ? new Map<number, Buffer>() : undefined;
    let own = 0;
    for (let k = 0; k + 1 < starts.length; k++) {
      const at = result.places[2 * k]!;
      const size = result.places[2 * k + 1]!;
      let src = at >= 0 ? whole : undefined;
      if (at === -2) {
        const b = result.own[own++]!;
        src = Buffer.from(b.buffer, b.byteOffset, b.byteLength);
      }
      const base = at >= 0 ? at : 0;
      for (let i = starts[k]!; i < starts[k + 1]!; i++) {
        const d = list[i]!;
        const inner = plan.inner[d]!;
        const end = inner + plan.raw[d]!;
        if (src === undefined || end > size || bad?.has(d) === true) {
          if (plan.base[d]! < 0 && this.mark[d] === asked) slow.push(d);
          continue;
        }
        const bytes = src.subarray(base + inner, base + end);
        if (plan.base[d]! >= 0 || this.mark[d] !== asked) local!.set(d, bytes);
        else this.views[d] = bytes;
      }
    }
    for (const d of slow) this.views[d] = this.packs.readChunk(plan.hashes[d]!);
    for (const d of deltas) {
      const h = plan.hashes[d]!;
      const form = local!.get(d);
      if (form === undefined) {
        this.views[d] = this.packs.readChunk(h); // its block did not read: readChunk says why
        continue;
      }
      const b = plan.base[d]!;
      const base =
        local!.get(b) ?? this.views[b] ?? cache?.get(plan.hashes[b]!) ?? this.packs.readChunk(plan.hashes[b]!);
      const data = applyDelta(base, form);
      this.hashed++;
      this.views[d] = data !== null && sha256(data) === h ? data : this.packs.readChunk(h);
    }
  }

  /** The chunks a worker found bad (or whose block it could not read), by number. */
  private badChunks(r: BlockResult, list: readonly number[], starts: readonly number[]): Set<number> {
    const bad = new Set<number>();
    for (let k = 0; k < r.bad.length; k += 2) {
      const block = r.bad[k]!;
      const s = r.bad[k + 1]!;
      let checked = 0;
      for (let i = starts[block]!; i < starts[block + 1]!; i++) {
        const d = list[i]!;
        if (s < 0) bad.add(d);
        else if (this.plan.base[d]! < 0 && checked++ === s) bad.add(d);
      }
    }
    return bad;
  }
}

/**
 * The job that fetches `list` (in pack, offset order): one block per run of chunks in the same stored block
 * (`starts`: where each block's run begins in `list`, then its end), neighbours in one pack merged into one read;
 * whole chunks are checked, delta forms only cut out. `plain`: the plain bytes of all blocks.
 */
export function planBlockJob(
  plan: PartPlan,
  list: readonly number[],
): { job: Omit<BlockJob, 'id'>; starts: number[]; plain: number } {
  const starts: number[] = [];
  for (let i = 0; i < list.length; i++) if (i === 0 || !plan.sameBlock(list[i]!, list[i - 1]!)) starts.push(i);
  starts.push(list.length);
  const blocks = starts.length - 1;
  const meta = new Int32Array(blocks * BLOCK_FIELDS);
  let checks = 0;
  for (const d of list) if (plan.base[d]! < 0) checks++;
  const slices = new Int32Array(2 * checks);
  const reads: Array<[string, number, number]> = [];
  let hashes = '';
  let s = 0;
  let plainTotal = 0;
  let readStart = 0;
  let readEnd = 0;
  let readPack = -1;
  for (let k = 0; k < blocks; k++) {
    const first = list[starts[k]!]!;
    const p = plan.pack[first]!;
    const offset = plan.offset[first]!;
    const length = plan.length[first]!;
    if (p !== readPack || offset > readEnd + MAX_GAP || offset + length - readStart > MAX_RANGE) {
      if (readPack >= 0) reads.push([plan.packFiles[readPack]!, readStart, readEnd - readStart]);
      readPack = p;
      readStart = offset;
      readEnd = offset + length;
    } else readEnd = Math.max(readEnd, offset + length);
    let plain = 0;
    let n = 0;
    for (let i = starts[k]!; i < starts[k + 1]!; i++) {
      const d = list[i]!;
      const end = plan.inner[d]! + plan.raw[d]!;
      if (end > plain) plain = end;
      if (plan.base[d]! >= 0) continue;
      slices[2 * s] = plan.inner[d]!;
      slices[2 * s + 1] = plan.raw[d]!;
      hashes += plan.hashes[d]!;
      s++;
      n++;
    }
    const m = k * BLOCK_FIELDS;
    meta[m] = reads.length;
    meta[m + 1] = offset - readStart;
    meta[m + 2] = length;
    meta[m + 3] = plan.codec[first]!;
    meta[m + 4] = plain;
    meta[m + 5] = n;
    plainTotal += plain;
  }
  if (readPack >= 0) reads.push([plan.packFiles[readPack]!, readStart, readEnd - readStart]);
  return { job: { reads, meta, slices, hashes }, starts, plain: plainTotal };
}

/** Whether `list` is already in pack, offset order (it mostly is: a part's chunks were written in order). */
export function inOrder(plan: PartPlan, list: readonly number[]): boolean {
  for (let i = 1; i < list.length; i++) {
    const d = list[i - 1]!;
    const e = list[i]!;
    if (plan.pack[d]! > plan.pack[e]! || (plan.pack[d] === plan.pack[e] && plan.offset[d]! > plan.offset[e]!))
      return false;
  }
  return true;
}
