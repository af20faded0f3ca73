// Pack files: new chunks of one checkpoint appended to one file, plus a self-checking index written after the data is durable.
import { createHash, randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, openSync, readFileSync, writeSync } from 'node:fs';
import path from 'node:path';
import { writeFileAtomic } from './fsync.js';

/** How a chunk's bytes are kept in its pack: 0 as they are, 1 deflate-raw (node:zlib). */
export type Codec = 0 | 1;

/** Where a chunk lives: pack id, byte offset, stored length, codec. */
export interface ChunkLocation {
  pack: string;
  offset: number;
  length: number;
  codec: Codec;
}

/** An index entry; the codec is omitted for raw chunks (and in indexes written before compression existed). */
export type IndexEntry = [hash: string, offset: number, length: number, codec?: Codec];

export interface PackIndexFile {
  pack: string;
  entries: IndexEntry[];
  check: string;
}

const FLUSH_AT = 1 << 20;

/** Appends chunks to a new pack; `seal()` fsyncs the data, then writes the index atomically. */
export class PackWriter {
  readonly id = randomBytes(8).toString('hex');
  private fd: number | null = null;
  private offset = 0;
  private buffered: Uint8Array[] = [];
  private bufferedBytes = 0;
  private readonly entries: PackIndexFile['entries'] = [];

  constructor(private readonly dir: string) {}

  get bytes(): number {
    return this.offset + this.bufferedBytes;
  }

  get count(): number {
    return this.entries.length;
  }

  /** Append one chunk's stored bytes (copied unless `owned`: the caller may reuse its buffer); returns its location. */
  add(hash: string, data: Uint8Array, codec: Codec = 0, owned = false): ChunkLocation {
    const loc: ChunkLocation = { pack: this.id, offset: this.bytes, length: data.length, codec };
    this.entries.push(codec === 0 ? [hash, loc.offset, loc.length] : [hash, loc.offset, loc.length, codec]);
    this.buffered.push(owned ? data : Buffer.from(data));
    this.bufferedBytes += data.length;
    if (this.bufferedBytes >= FLUSH_AT) this.flush();
    return loc;
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
