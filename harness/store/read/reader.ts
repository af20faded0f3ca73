// Read side of one committed checkpoint: a part's bytes whole, streamed, or materialised into a scratch file.
import { closeSync, openSync, writeSync } from 'node:fs';
import { type IntoCounts, partInto } from './part-into.js';
import { IntegrityError } from '../../core/errors.js';
import type { Manifest, PartEntry } from '../manifest.js';
import { PackReader } from './pack-reader.js';
import { type ChunkReader, partBytes } from './part-reader.js';
import { checkedStream, partStream, type ReadCounts } from './part-stream.js';
import { readPool } from './read-pool.js';
import type { CheckpointSource, StreamOptions } from '../types.js';
import type { ChunkCache } from './chunk-fetch.js';

/**
 * One committed checkpoint opened for reading; every chunk read is hash-checked. Reading through the store's packs
 * goes the fast way (part-stream.ts: batched, decompressed and checked on worker threads); any other ChunkReader (a test's
 * double) chunk by chunk.
 */
export class CheckpointReader implements CheckpointSource {
  /** What the reads so far did: chunks handed out and SHA-256 computations (fast reads only). */
  readonly counts: ReadCounts & Partial<Pick<IntoCounts, 'holes'>> = { chunks: 0, hashed: 0, cached: 0 };

  /** `cache`: checked chunks held in memory (a warm standby's, warm-chunks.ts), served instead of read. */
  constructor(
    private readonly chunks: ChunkReader,
    readonly manifest: Manifest,
    private readonly cache?: ChunkCache,
  ) {
    // start the worker threads now if a part will need them: they boot while the caller prepares (a restore's steps)
    if (chunks instanceof PackReader) for (const p of manifest.parts) readPool(p.size);
  }

  /** The checkpoint's sequence number. */
  get seq(): number {
    return this.manifest.seq;
  }

  /** The workload step the checkpoint holds. */
  get step(): number {
    return this.manifest.step;
  }

  /** Part names in the order they were put. */
  parts(): string[] {
    return this.manifest.parts.map((p) => p.name);
  }

  private part(name: string): PartEntry {
    const p = this.manifest.parts.find((x) => x.name === name);
    if (!p)
      throw new IntegrityError(`checkpoint ${this.seq} has no part "${name}" (it has: ${this.parts().join(', ')})`);
    return p;
  }

  /**
   * The whole part's bytes in ~1 MiB pieces (`reuse`: three buffers cycled, see Batcher). Through the store's packs
   * every chunk is hash-checked once before any of its bytes are handed out, and nothing is hashed twice: the manifest
   * (self-checked) names each chunk by its SHA-256, so the whole-part digest would only re-hash verified pages (`soak
   * store verify` still checks it). Any other ChunkReader (a test's double) is read chunk by chunk and the whole part
   * checked against its digest (IntegrityError before the last piece).
   */
  private async *bytes(name: string, reuse = false): AsyncGenerator<Buffer> {
    const p = this.part(name);
    if (this.chunks instanceof PackReader) yield* this.fast(this.chunks, p, reuse);
    else yield* checkedStream(partBytes(this.chunks, p), p.sha256, `checkpoint ${this.seq} part "${name}"`);
  }

  private async *fast(packs: PackReader, p: PartEntry, reuse: boolean): AsyncGenerator<Buffer> {
    const whole = this.cache?.whole?.(p.name, p.sha256);
    if (whole !== undefined && whole.length === p.size) {
      // assembled from this part's checked chunks (a warm standby's copy): handed over in one piece
      this.counts.chunks += p.chunks.length;
      this.counts.cached! += p.chunks.length;
      yield whole;
      return;
    }
    const counts: ReadCounts = { chunks: 0, hashed: 0 };
    try {
      yield* partStream(packs, readPool(p.size), p, reuse, counts, this.cache);
    } finally {
      this.counts.chunks += counts.chunks;
      this.counts.hashed += counts.hashed;
      this.counts.cached! += counts.cached ?? 0;
    }
  }

  /** The part's bytes in one buffer. */
  async get(name: string): Promise<Buffer> {
    const out = Buffer.allocUnsafe(this.part(name).size);
    let at = 0;
    for await (const piece of this.bytes(name, true)) at += piece.copy(out, at);
    return at === out.length ? out : out.subarray(0, at);
  }

  /**
   * The part's bytes in ~1 MiB pieces (a page-split stream is rebuilt byte for byte on the way), read lazily; with
   * `reuse`, pieces are reused buffers (StreamOptions).
   */
  stream(name: string, opts: StreamOptions = {}): AsyncIterable<Buffer> {
    return this.bytes(name, opts.reuse === true);
  }

  /** The part's SHA-256 as the manifest records it (undefined: an older manifest without part digests). */
  digest(name: string): string | undefined {
    return this.part(name).sha256;
  }

  /** The part's logical size in bytes. */
  size(name: string): number {
    return this.part(name).size;
  }

  /**
   * The part written into open file `fd` at its offsets (part-into.ts: checked chunks, zero pages left as holes in a
   * file that holds no data); a page-split part, or one read through another ChunkReader, is written piece by piece.
   */
  async writeInto(name: string, fd: number): Promise<number> {
    const p = this.part(name);
    if (!(this.chunks instanceof PackReader) || p.layout) return this.writePieces(name, fd);
    const counts: IntoCounts = { chunks: 0, hashed: 0, holes: 0 };
    try {
      return await partInto(this.chunks, readPool(p.size), p, fd, counts, this.cache);
    } finally {
      this.counts.chunks += counts.chunks;
      this.counts.hashed += counts.hashed;
      this.counts.cached! += counts.cached ?? 0;
      this.counts.holes = (this.counts.holes ?? 0) + counts.holes;
    }
  }

  /** Not fsynced: a materialised part is scratch for a restore; the durable copy stays in the store. */
  async writeFile(name: string, file: string): Promise<void> {
    this.part(name);
    const fd = openSync(file, 'w', 0o600);
    try {
      await this.writePieces(name, fd);
    } finally {
      closeSync(fd);
    }
  }

  /** The part's bytes written into `fd` from offset 0, piece after piece; the bytes written. */
  private async writePieces(name: string, fd: number): Promise<number> {
    let at = 0;
    for await (const piece of this.bytes(name, true)) {
      for (let o = 0; o < piece.length;) o += writeSync(fd, piece, o, piece.length - o, at + o);
      at += piece.length;
    }
    return at;
  }
}
