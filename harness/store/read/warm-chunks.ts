// A warm standby's copy of the newest checkpoint's chunks, checked once and kept in this process's memory, so its
// restore reads from the store only what was committed after the last warm-up. Kept current as each checkpoint commits:
// only chunks the newest checkpoint has and this copy lacks are fetched (a few per checkpoint: the store dedups). The
// honesty line is the fast read's own: a chunk's bytes are handed out only after their SHA-256 matched the name the
// (self-checked) manifest gives them; here that check ran when the chunk was fetched, and the bytes never left memory.
import { type ChunkCache, ChunkFetcher } from './chunk-fetch.js';
import type { Manifest, PartEntry } from '../manifest.js';
import type { PackReader } from './pack-reader.js';
import { PartPlan } from './part-plan.js';
import type { ReadPool } from './read-pool.js';

/** Chunks fetched per batch while warming (~4 MiB of 4 KiB pages): the pool stays free for a restore between batches. */
const BATCH = 1024;

/** A restore's `source` when it read chunks from a standby's warm copy (and no hot copy): one label, counted per run. */
export const WARM_SOURCE = "store (standby's warm copy)";

/** A warm copy holds a checkpoint's parts in order up to this many bytes (a big disk image stays in the store). */
export const WARM_MAX_BYTES = 1 << 30;

/** The parts a warm copy of `m` holds: in order, while their sizes add up to at most `maxBytes`. */
export function warmParts(m: Manifest, maxBytes = WARM_MAX_BYTES): PartEntry[] {
  const parts: PartEntry[] = [];
  let total = 0;
  for (const p of m.parts) {
    total += p.size;
    if (total > maxBytes) break;
    parts.push(p);
  }
  return parts;
}

/** The chunks a warm copy of `m` holds: those of its warmParts, in order. */
export function warmChunkList(m: Manifest, maxBytes = WARM_MAX_BYTES): string[] {
  const list: string[] = [];
  for (const p of warmParts(m, maxBytes)) for (const h of p.chunks) list.push(h);
  return list;
}

/** What one warm-up did. */
export interface WarmCounts {
  /** Chunks fetched from the store (checked) this time. */
  fetched: number;
  /** Distinct chunks held afterwards. */
  held: number;
  /** Their bytes. */
  bytes: number;
}

/** What `assemble` reads a checkpoint's parts through (a CheckpointReader over this cache). */
export interface PartSource {
  readonly manifest: Manifest;
  stream(name: string, opts: { reuse: boolean }): AsyncIterable<Buffer>;
}

export class WarmChunks implements ChunkCache {
  private held = new Map<string, Buffer>();
  private closed = false;
  /** Parts whole, by name: the digest they were assembled for and their bytes; and the buffer each may reuse next. */
  private wholes = new Map<string, { sha256: string; bytes: Buffer; full: Buffer }>();
  private spare = new Map<string, Buffer>();

  get(hash: string): Buffer | undefined {
    return this.held.get(hash);
  }

  whole(name: string, sha256: string | undefined): Buffer | undefined {
    const w = this.wholes.get(name);
    return w !== undefined && sha256 !== undefined && w.sha256 === sha256 ? w.bytes : undefined;
  }

  /**
   * Assemble each of the warmParts of `src` that has a digest into one buffer (read through this cache after keep():
   * no store read), so a restore hands the part over in one write instead of rebuilding it from chunks while the
   * guest waits. Two buffers a part, the one not handed out refilled: a read under way keeps its own. Returns the
   * warm parts' bytes.
   */
  async assemble(src: PartSource): Promise<number> {
    let total = 0;
    for (const { name, size, sha256 } of warmParts(src.manifest)) {
      total += size;
      if (sha256 === undefined || this.whole(name, sha256) !== undefined) continue;
      let buf = this.spare.get(name);
      if (buf === undefined || buf.length < size) buf = Buffer.allocUnsafe(size + (size >> 4));
      let at = 0;
      for await (const piece of src.stream(name, { reuse: true })) at += piece.copy(buf, at);
      if (at !== size || this.closed) return total;
      const was = this.wholes.get(name);
      this.wholes.set(name, { sha256, bytes: buf.subarray(0, size), full: buf });
      if (was !== undefined) this.spare.set(name, was.full);
      else this.spare.delete(name);
    }
    return total;
  }

  /** Distinct chunks held. */
  get size(): number {
    return this.held.size;
  }

  /**
   * Hold exactly the chunks of `list` (a checkpoint's parts' chunk lists, concatenated): fetch those not held, drop
   * those it no longer names. The new set replaces the old one whole, and either holds only checked bytes, so a read
   * under way is served right from either. Throws what the store's read throws (a missing or corrupt chunk:
   * IntegrityError); the set held before stays.
   */
  async keep(packs: PackReader, pool: ReadPool, list: readonly string[]): Promise<WarmCounts> {
    const old = this.held;
    const missing: string[] = [];
    const seen = new Set<string>();
    for (const h of list) {
      if (old.has(h) || seen.has(h)) continue;
      seen.add(h);
      missing.push(h);
    }
    const got = new Map<string, Buffer>();
    for (let at = 0; at < missing.length; at += BATCH) {
      const plan = new PartPlan(packs, missing.slice(at, at + BATCH));
      const fetcher = new ChunkFetcher(packs, pool, plan);
      const todo = plan.firstUses(0, plan.ids.length);
      await fetcher.fetch(todo);
      // each chunk in a buffer of its own: a view would keep its whole decoded block alive after the chunk is dropped
      for (const d of todo) got.set(plan.hashes[d]!, Buffer.from(fetcher.views[d]!));
    }
    const next = new Map<string, Buffer>();
    let bytes = 0;
    for (const h of list) {
      if (next.has(h)) continue;
      const b = old.get(h) ?? got.get(h)!;
      next.set(h, b);
      bytes += b.length;
    }
    if (!this.closed) this.held = next;
    return { fetched: got.size, held: next.size, bytes };
  }

  /** Drop everything for good (the standby became the session's host): a warm-up still under way keeps nothing. */
  clear(): void {
    this.closed = true;
    this.held = new Map();
    this.wholes = new Map();
    this.spare = new Map();
  }
}
