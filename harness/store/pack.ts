// Pack files: the new chunks of one checkpoint (or of one gc) appended to one file, plus a self-checking index written
// after the data is durable. With compression on, chunks are gathered into ~64 KiB blocks and each block is deflated
// once (per-chunk calls cost twice as much and compress worse); a block that does not shrink is stored chunk by chunk.
import { createHash, randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, openSync, readFileSync, writeSync } from 'node:fs';
import path from 'node:path';
import { deflateRawSync } from 'node:zlib';
import { writeFileAtomic } from './fsync.js';

/** How new chunks are kept: `deflate` (deflate-raw level 1 in ~64 KiB blocks) or `none`. */
export type Compression = 'deflate' | 'none';

/** 0: the chunk's bytes as they are. 2: a slice of a deflate-raw block. */
export type Codec = 0 | 2;

/** Where a chunk lives: pack id, byte offset and length in the pack (of its block, for codec 2), and its slice. */
export interface ChunkLocation {
  pack: string;
  offset: number;
  length: number;
  codec: Codec;
  /** Codec 2: where the chunk starts in the inflated block, and its length. Codec 0: 0 and `length`. */
  inner: number;
  rawLength: number;
}

/** An index entry: raw chunks [hash, offset, length]; block chunks [hash, blockOffset, blockLength, 2, inner, rawLength]. */
export type IndexEntry = [hash: string, offset: number, length: number] | [hash: string, offset: number, length: number, codec: 2, inner: number, rawLength: number];

export interface PackIndexFile {
  pack: string;
  entries: IndexEntry[];
  check: string;
}

/** The location an index entry describes. */
export function entryLocation(pack: string, e: IndexEntry): ChunkLocation {
  return e.length === 6 ? { pack, offset: e[1], length: e[2], codec: 2, inner: e[4], rawLength: e[5] } : { pack, offset: e[1], length: e[2], codec: 0, inner: 0, rawLength: e[2] };
}

const FLUSH_AT = 1 << 20;
const BLOCK_BYTES = 64 * 1024;

/** Appends chunks to a new pack; `seal()` fsyncs the data, then writes the index atomically. */
export class PackWriter {
  readonly id = randomBytes(8).toString('hex');
  private fd: number | null = null;
  private offset = 0;
  private buffered: Uint8Array[] = [];
  private bufferedBytes = 0;
  private readonly entries: IndexEntry[] = [];
  private block: Array<[string, Buffer]> = [];
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

  /** Append one chunk (copied: the caller may reuse its buffer). Its location is known once the pack is sealed. */
  add(hash: string, data: Uint8Array): void {
    if (this.compression === 'none') {
      this.entries.push([hash, this.bytes, data.length]);
      this.append(Buffer.from(data));
      return;
    }
    this.block.push([hash, Buffer.from(data)]);
    this.blockBytes += data.length;
    if (this.blockBytes >= BLOCK_BYTES) this.flushBlock();
  }

  private flushBlock(): void {
    if (this.block.length === 0) return;
    const raw = Buffer.concat(this.block.map(([, d]) => d), this.blockBytes);
    const z = deflateRawSync(raw, { level: 1 });
    if (z.length <= raw.length - (raw.length >> 3)) {
      let inner = 0;
      for (const [h, d] of this.block) {
        this.entries.push([h, this.bytes, z.length, 2, inner, d.length]);
        inner += d.length;
      }
      this.append(z);
    } else {
      for (const [h, d] of this.block) {
        this.entries.push([h, this.bytes, d.length]);
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
    writeSync(this.fd, Buffer.concat(this.buffered, this.bufferedBytes));
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
      fsyncSync(this.fd);
      closeSync(this.fd);
      this.fd = null;
    }
    const body = { pack: this.id, entries: this.entries };
    const index: PackIndexFile = { ...body, check: digest(JSON.stringify(body)) };
    const text = JSON.stringify(index);
    writeFileAtomic(path.join(this.dir, `${this.id}.idx`), text);
    return Buffer.byteLength(text);
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

function digest(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** Read a pack index; null when it is torn or fails its check (its pack is then ignored). */
export function readPackIndex(file: string): PackIndexFile | null {
  try {
    const idx = JSON.parse(readFileSync(file, 'utf8')) as PackIndexFile;
    const { check, ...body } = idx;
    return digest(JSON.stringify(body)) === check ? idx : null;
  } catch {
    return null;
  }
}
