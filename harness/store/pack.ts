// Pack files: the new chunks of one checkpoint (or of one gc) appended to one file, plus a self-checking index written
// after the data is durable. With compression on, chunks are gathered into ~64 KiB blocks and each block is compressed
// once (LZ4 by default, lz4-block.ts; deflate-raw as stores before it did); a block that does not shrink by 1/8 is
// stored chunk by chunk. Each index entry names its block's codec, so packs of every codec read side by side. A chunk
// may be stored as a delta against a base chunk (chunking/delta.ts): its entry then names the base.
import { randomBytes } from 'node:crypto';
import { closeSync, openSync } from 'node:fs';
import path from 'node:path';
import { deflateRawSync } from 'node:zlib';
import { compressSync as lz4CompressSync } from 'lz4-napi';
import { fsyncBeforeRename, writeAll, writeFileAtomic } from '../core/durable.js';
import { type ChunkLocation, encodePackIndex, entryLocation, type IndexEntry } from './index/pack-index.js';

/**
 * How new chunks are kept: `lz4` (LZ4 blocks of ~64 KiB: compresses much faster than deflate level 1, bench/README.md,
 * and decodes into reused buffers), `deflate` (deflate-raw level 1 in ~64 KiB blocks, the format of older stores) or `none`.
 */
export type Compression = 'lz4' | 'deflate' | 'none';

/**
 * TEST-ONLY: SOAK_TEST_IGNORE_FAILED_WRITE=1 builds a broken pack writer that carries on past a failed write of pack
 * data (ENOSPC, EIO) as if it had succeeded (the negative control of the EIO nemesis: the checkpoint commits over a
 * hole). Read here and nowhere else; nothing sets it in normal use.
 */
export const TEST_IGNORE_FAILED_WRITE = 'SOAK_TEST_IGNORE_FAILED_WRITE';

const FLUSH_AT = 1 << 20;
const BLOCK_BYTES = 64 * 1024;

/** Whether a block of `raw` bytes is stored compressed at `compressed` bytes: only when that saves at least 1/8. */
export const keptCompressed = (raw: number, compressed: number): boolean => compressed <= raw - (raw >> 3);

/** Appends chunks to a new pack; `seal()` fsyncs the data, then writes the index atomically. */
export class PackWriter {
  readonly id = randomBytes(8).toString('hex');
  private fd: number | null = null;
  private offset = 0;
  private buffered: Uint8Array[] = [];
  private bufferedBytes = 0;
  private readonly entries: IndexEntry[] = [];
  private block: Array<[string, Buffer, string | undefined]> = [];
  private blockBytes = 0;

  constructor(
    private readonly dir: string,
    private readonly compression: Compression = 'none',
  ) {}

  /** Bytes written to the pack so far (final once sealed). */
  get bytes(): number {
    return this.offset + this.bufferedBytes;
  }

  /** Chunks added. */
  get count(): number {
    return this.entries.length + this.block.length;
  }

  /** Chunks added as deltas against a base. */
  get deltas(): number {
    return (
      this.entries.filter((e) => e.length === 7).length + this.block.filter(([, , base]) => base !== undefined).length
    );
  }

  /**
   * Append one chunk's stored bytes (copied: the caller may reuse its buffer): the chunk itself, or with `base` a delta
   * against that chunk. Its location is known once the pack is sealed.
   */
  add(hash: string, data: Uint8Array, base?: string): void {
    if (this.compression === 'none') {
      this.entries.push(rawEntry(hash, this.bytes, data.length, base));
      this.append(Buffer.from(data));
      return;
    }
    this.block.push([hash, Buffer.from(data), base]);
    this.blockBytes += data.length;
    if (this.blockBytes >= BLOCK_BYTES) this.flushBlock();
  }

  private flushBlock(): void {
    if (this.block.length === 0) return;
    const raw = Buffer.concat(
      this.block.map(([, d]) => d),
      this.blockBytes,
    );
    const codec = this.compression === 'lz4' ? 3 : 2;
    const z = codec === 3 ? lz4CompressSync(raw) : deflateRawSync(raw, { level: 1 });
    if (keptCompressed(raw.length, z.length)) {
      let inner = 0;
      for (const [h, d, base] of this.block) {
        this.entries.push(
          base === undefined
            ? [h, this.bytes, z.length, codec, inner, d.length]
            : [h, this.bytes, z.length, codec, inner, d.length, base],
        );
        inner += d.length;
      }
      this.append(z);
    } else {
      for (const [h, d, base] of this.block) {
        this.entries.push(rawEntry(h, this.bytes, d.length, base));
        this.append(d);
      }
    }
    this.block = [];
    this.blockBytes = 0;
  }

  private append(data: Uint8Array): void {
    this.buffered.push(data);
    this.bufferedBytes += data.length;
    if (this.bufferedBytes >= FLUSH_AT) this.flush();
  }

  private flush(): void {
    if (this.bufferedBytes === 0) return;
    this.fd ??= openSync(path.join(this.dir, `${this.id}.pack`), 'w', 0o644);
    try {
      writeAll(this.fd, Buffer.concat(this.buffered, this.bufferedBytes));
    } catch (err) {
      if (process.env[TEST_IGNORE_FAILED_WRITE] !== '1') throw err;
    }
    this.offset += this.bufferedBytes;
    this.buffered = [];
    this.bufferedBytes = 0;
  }

  /** Make the pack durable: data fsynced first, then the index written atomically. Returns the index size. */
  seal(): number {
    this.flushBlock();
    if (this.entries.length === 0) return 0;
    this.flush();
    if (this.fd !== null) {
      fsyncBeforeRename(this.fd); // before the index (and later the manifest) name it
      closeSync(this.fd);
      this.fd = null;
    }
    const bytes = encodePackIndex(this.id, this.entries);
    writeFileAtomic(path.join(this.dir, `${this.id}.idx`), bytes);
    return bytes.length;
  }

  /** Locations of every chunk of a sealed pack. */
  locations(): Array<[string, ChunkLocation]> {
    return this.entries.map((e) => [e[0], entryLocation(this.id, e)]);
  }

  /** Abandon an unsealed pack (close the fd; the file is garbage a later gc removes). */
  abandon(): void {
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
  }
}

function rawEntry(hash: string, offset: number, length: number, base: string | undefined): IndexEntry {
  return base === undefined ? [hash, offset, length] : [hash, offset, length, 0, 0, length, base];
}
