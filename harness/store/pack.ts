// Pack files: the new chunks of one checkpoint (or of one gc) appended to one file, plus a self-checking index written
// after the data is durable. With compression on, chunks are gathered into ~64 KiB blocks and each block is deflated
// once (per-chunk calls cost twice as much and compress worse); a block that does not shrink is stored chunk by chunk.
// A chunk may be stored as a delta against a base chunk (harness/store/delta.ts): its entry then names the base.
import { createHash, randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, openSync, readFileSync, writeSync } from 'node:fs';
import path from 'node:path';
import { deflateRawSync } from 'node:zlib';
import { writeFileAtomic } from '../core/durable.js';
import { GrowBuffer } from './chunking/ingest.js';

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
  /** Set when the stored bytes are a delta against this chunk (harness/store/delta.ts), not the chunk itself. */
  base?: string;
}

/**
 * An index entry: raw chunks [hash, offset, length]; block chunks [hash, blockOffset, blockLength, 2, inner, rawLength];
 * a delta adds its base: [hash, offset, length, codec, inner, rawLength, base].
 */
export type IndexEntry =
  | [hash: string, offset: number, length: number]
  | [hash: string, offset: number, length: number, codec: Codec, inner: number, rawLength: number]
  | [hash: string, offset: number, length: number, codec: Codec, inner: number, rawLength: number, base: string];

export interface PackIndexFile {
  pack: string;
  entries: IndexEntry[];
  check: string;
}

/** The location an index entry describes. */
export function entryLocation(pack: string, e: IndexEntry): ChunkLocation {
  if (e.length === 3) return { pack, offset: e[1], length: e[2], codec: 0, inner: 0, rawLength: e[2] };
  const loc: ChunkLocation = { pack, offset: e[1], length: e[2], codec: e[3], inner: e[4], rawLength: e[5] };
  if (e.length === 7) loc.base = e[6];
  return loc;
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
    const z = deflateRawSync(raw, { level: 1 });
    if (z.length <= raw.length - (raw.length >> 3)) {
      let inner = 0;
      for (const [h, d, base] of this.block) {
        this.entries.push(
          base === undefined
            ? [h, this.bytes, z.length, 2, inner, d.length]
            : [h, this.bytes, z.length, 2, inner, d.length, base],
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

function digest(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

// Binary index (version 2): MAGIC, the pack id (8 bytes), u32le entry count, entries, then the SHA-256 of all bytes
// before it. An entry: 32-byte hash, a flags byte (BLOCK: codec 2, then inner and rawLength follow; DELTA: a 32-byte
// base hash ends the entry), LEB128 offset and length. ~39 bytes a chunk where the JSON index (version 1, still read)
// took ~85: on a 20-checkpoint series of a 256 MiB guest that was 1.2 MiB, 2% of everything stored.
const MAGIC = Buffer.from('SOAKIDX\x02', 'latin1');
const BLOCK = 1;
const DELTA = 2;

/** The bytes of a version-2 index for `pack` (a 16-hex-digit id). */
export function encodePackIndex(pack: string, entries: readonly IndexEntry[]): Buffer {
  const out = new GrowBuffer(64 + entries.length * 48);
  out.append(MAGIC);
  out.append(Buffer.from(pack, 'hex'));
  const count = Buffer.allocUnsafe(4);
  count.writeUInt32LE(entries.length);
  out.append(count);
  const flags = Buffer.allocUnsafe(1);
  for (const e of entries) {
    out.append(Buffer.from(e[0], 'hex'));
    flags[0] = (e.length > 3 && e[3] === 2 ? BLOCK : 0) | (e.length === 7 ? DELTA : 0);
    out.append(flags);
    out.appendVarint(e[1]);
    out.appendVarint(e[2]);
    if (flags[0] & BLOCK) {
      out.appendVarint(e[4]!);
      out.appendVarint(e[5]!);
    }
    if (e.length === 7) out.append(Buffer.from(e[6], 'hex'));
  }
  const body = out.view();
  return Buffer.concat([body, createHash('sha256').update(body).digest()]);
}

/** Parse a version-2 index; throws on any inconsistency (the caller treats that as a torn index). */
function decodePackIndex(buf: Buffer): PackIndexFile {
  if (buf.length < MAGIC.length + 8 + 4 + 32) throw new Error('short');
  const body = buf.subarray(0, buf.length - 32);
  const check = buf.subarray(buf.length - 32);
  if (!createHash('sha256').update(body).digest().equals(check)) throw new Error('check');
  let at = MAGIC.length;
  const pack = body.toString('hex', at, at + 8);
  at += 8;
  const n = body.readUInt32LE(at);
  at += 4;
  const varint = (): number => {
    let v = 0;
    for (let mul = 1; ; mul *= 0x80) {
      if (at >= body.length) throw new Error('truncated');
      const b = body[at++]!;
      v += (b & 0x7f) * mul;
      if (!(b & 0x80)) return v;
    }
  };
  const entries: IndexEntry[] = new Array<IndexEntry>(n);
  for (let i = 0; i < n; i++) {
    if (at + 33 > body.length) throw new Error('truncated');
    const hash = body.toString('hex', at, at + 32);
    const flags = body[at + 32]!;
    at += 33;
    const offset = varint();
    const length = varint();
    const codec: Codec = flags & BLOCK ? 2 : 0;
    const inner = codec === 2 ? varint() : 0;
    const rawLength = codec === 2 ? varint() : length;
    if (flags & DELTA) {
      if (at + 32 > body.length) throw new Error('truncated');
      entries[i] = [hash, offset, length, codec, inner, rawLength, body.toString('hex', at, at + 32)];
      at += 32;
    } else entries[i] = codec === 2 ? [hash, offset, length, 2, inner, rawLength] : [hash, offset, length];
  }
  if (at !== body.length) throw new Error('trailing bytes');
  return { pack, entries, check: check.toString('hex') };
}

/** Read a pack index (binary version 2, or JSON version 1); null when it is torn or fails its check (its pack is then ignored). */
export function readPackIndex(file: string): PackIndexFile | null {
  try {
    const buf = readFileSync(file);
    if (buf.subarray(0, MAGIC.length).equals(MAGIC)) return decodePackIndex(buf);
    const idx = JSON.parse(buf.toString('utf8')) as PackIndexFile;
    const { check, ...body } = idx;
    return digest(JSON.stringify(body)) === check ? idx : null;
  } catch {
    return null;
  }
}
