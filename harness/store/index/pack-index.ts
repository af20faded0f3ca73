// Pack indexes: where each chunk of a pack lives (offset, length, block slice, delta base), as a self-checking file
// written once the pack's data is durable. A pack without an intact index is torn and ignored.
import { readFileSync } from 'node:fs';
import { ByteCursor, GrowBuffer } from '../../core/bytes.js';
import { jsonSealHolds, SEAL_BYTES, seal, unseal } from '../sealed-file.js';

/** 0: the chunk's bytes as they are. 2: a slice of a deflate-raw block. 3: a slice of an LZ4 block (lz4-block.ts). */
export type Codec = 0 | 2 | 3;

/** Where a chunk lives: pack id, byte offset and length in the pack (of its block, for codecs 2 and 3), and its slice. */
export interface ChunkLocation {
  pack: string;
  offset: number;
  length: number;
  codec: Codec;
  /** Codecs 2 and 3: where the chunk starts in the decompressed block, and its length. Codec 0: 0 and `length`. */
  inner: number;
  rawLength: number;
  /** Set when the stored bytes are a delta against this chunk (chunking/delta.ts), not the chunk itself. */
  base?: string;
}

/**
 * An index entry: raw chunks [hash, offset, length]; block chunks [hash, blockOffset, blockLength, codec, inner, rawLength];
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

// Binary index (version 2): MAGIC, the pack id (8 bytes), u32le entry count, entries, then the SHA-256 of all bytes
// before it. An entry: 32-byte hash, a flags byte (BLOCK: a block's chunk, deflate-raw (codec 2) or with LZ4 also set
// an LZ4 block (codec 3), then inner and rawLength follow; DELTA: a 32-byte base hash ends the entry), LEB128 offset and
// length: ~39 bytes a chunk. An unknown flag fails the index. The JSON index (version 1, sealed JSON) is still read.
const MAGIC = Buffer.from('SOAKIDX\x02', 'latin1');
const BLOCK = 1;
const DELTA = 2;
const LZ4 = 4;

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
    const codec = e.length > 3 ? e[3] : 0;
    flags[0] = (codec === 2 ? BLOCK : codec === 3 ? BLOCK | LZ4 : 0) | (e.length === 7 ? DELTA : 0);
    out.append(flags);
    out.appendVarint(e[1]);
    out.appendVarint(e[2]);
    if (flags[0] & BLOCK) {
      out.appendVarint(e[4]!);
      out.appendVarint(e[5]!);
    }
    if (e.length === 7) out.append(Buffer.from(e[6], 'hex'));
  }
  return seal(out.view());
}

/** Parse a version-2 index; throws on any inconsistency (the caller treats that as a torn index). */
export function decodePackIndex(buf: Buffer): PackIndexFile {
  if (buf.length < MAGIC.length + 8 + 4 + SEAL_BYTES) throw new Error('short');
  const body = unseal(buf);
  if (typeof body === 'string') throw new Error('check');
  const cur = new ByteCursor(body, MAGIC.length);
  const pack = body.toString('hex', cur.at, (cur.at += 8));
  const n = body.readUInt32LE(cur.at);
  cur.at += 4;
  const entries: IndexEntry[] = new Array<IndexEntry>(n);
  for (let i = 0; i < n; i++) {
    if (cur.left < 33) throw new Error('truncated');
    const hash = body.toString('hex', cur.at, cur.at + 32);
    const flags = body[cur.at + 32]!;
    cur.at += 33;
    const offset = cur.varint();
    const length = cur.varint();
    if (flags & ~(BLOCK | DELTA | LZ4) || (flags & (BLOCK | LZ4)) === LZ4) throw new Error('flags');
    const codec: Codec = flags & BLOCK ? (flags & LZ4 ? 3 : 2) : 0;
    const inner = codec !== 0 ? cur.varint() : 0;
    const rawLength = codec !== 0 ? cur.varint() : length;
    if (flags & DELTA) {
      if (cur.left < 32) throw new Error('truncated');
      entries[i] = [hash, offset, length, codec, inner, rawLength, body.toString('hex', cur.at, (cur.at += 32))];
    } else entries[i] = codec !== 0 ? [hash, offset, length, codec, inner, rawLength] : [hash, offset, length];
  }
  if (cur.left !== 0) throw new Error('trailing bytes');
  return { pack, entries, check: buf.toString('hex', body.length) };
}

/** Read a pack index (binary version 2, or JSON version 1); null when it is torn or fails its check (its pack is then ignored). */
export function readPackIndex(file: string): PackIndexFile | null {
  const r = loadPackIndex(file);
  return typeof r === 'string' ? null : r;
}

/** A pack index, or why it cannot be used ("fails its check: truncated or altered", ...). */
export function loadPackIndex(file: string): PackIndexFile | string {
  let buf: Buffer;
  try {
    buf = readFileSync(file);
  } catch (err) {
    return `cannot be read (${(err as { code?: string }).code ?? (err as Error).message})`;
  }
  if (buf.length === 0) return 'is empty';
  if (buf.subarray(0, MAGIC.length).equals(MAGIC)) {
    try {
      return decodePackIndex(buf);
    } catch (err) {
      return `fails its check (${(err as Error).message}): truncated or altered`;
    }
  }
  try {
    const idx = JSON.parse(buf.toString('utf8')) as PackIndexFile;
    return jsonSealHolds(idx) ? idx : 'fails its check: altered';
  } catch {
    return 'is neither a binary index nor whole JSON: truncated or altered';
  }
}
