// The consolidated chunk index (packs/chunks.cix): every chunk of the packs it covers, sorted by hash in fixed-size
// records, so a lookup is a binary search in one Buffer and opening it costs one read and one hash check, not one
// pack index per checkpoint ever written. A cache beside the pack indexes (they stay the truth): torn, failing its
// check, or stale (a pack it covers has no index file any more), it is ignored and the pack indexes are read.
import { createHash } from 'node:crypto';
import type { ChunkLocation } from './pack-index.js';

/** Its file name in packs/ (not `.idx`: it is no pack's index). */
export const CONSOLIDATED_FILE = 'chunks.cix';

const MAGIC = Buffer.from('SOAKCIX\x01', 'latin1');
const HEAD = MAGIC.length + 8; // MAGIC, u32le pack count, u32le record count
const FANOUT = 256 * 4; // u32le: records whose hash's first byte is <= i
/** A record: hash (32), u32 pack number, u48 offset, u32 length, u32 inner, u32 rawLength, u8 codec, u32 base record. */
const RECORD = 59;
const NO_BASE = 0xffffffff;
const PACK_ID = /^[0-9a-f]{16}$/;

/** Whether `pack` is an id the file can hold (8 bytes as 16 hex digits; other packs stay out and are read one by one). */
export function consolidatable(pack: string): boolean {
  return PACK_ID.test(pack);
}

/**
 * The bytes of a consolidated index covering `packs`, listing `entries` (each hash once; their packs among `packs`).
 * A delta whose base is not listed is left out (a lookup of it then reads the pack indexes, as it would anyway).
 */
export function encodeConsolidated(packs: readonly string[], entries: ReadonlyMap<string, ChunkLocation>): Buffer {
  const packNo = new Map(packs.map((p, i) => [p, i]));
  const listed = (h: string): boolean => {
    const loc = entries.get(h);
    return loc !== undefined && packNo.has(loc.pack);
  };
  const hashes = [...entries.keys()]
    .filter((h) => {
      const base = entries.get(h)!.base;
      return listed(h) && (base === undefined || (listed(base) && entries.get(base)!.base === undefined));
    })
    .sort();
  const recordNo = new Map(hashes.map((h, i) => [h, i]));
  const recordsAt = HEAD + packs.length * 8 + FANOUT;
  const buf = Buffer.alloc(recordsAt + hashes.length * RECORD + 32);
  MAGIC.copy(buf);
  buf.writeUInt32LE(packs.length, MAGIC.length);
  buf.writeUInt32LE(hashes.length, MAGIC.length + 4);
  packs.forEach((p, i) => buf.write(p, HEAD + i * 8, 'hex'));
  const fanout = new Uint32Array(256);
  hashes.forEach((h, i) => {
    const loc = entries.get(h)!;
    const at = recordsAt + i * RECORD;
    buf.write(h, at, 'hex');
    buf.writeUInt32LE(packNo.get(loc.pack)!, at + 32);
    buf.writeUIntLE(loc.offset, at + 36, 6);
    buf.writeUInt32LE(loc.length, at + 42);
    buf.writeUInt32LE(loc.inner, at + 46);
    buf.writeUInt32LE(loc.rawLength, at + 50);
    buf[at + 54] = loc.codec;
    buf.writeUInt32LE(loc.base === undefined ? NO_BASE : (recordNo.get(loc.base) ?? NO_BASE), at + 55);
    fanout[buf[at]!]!++;
  });
  for (let b = 0, sum = 0; b < 256; b++) buf.writeUInt32LE((sum += fanout[b]!), HEAD + packs.length * 8 + b * 4);
  createHash('sha256')
    .update(buf.subarray(0, buf.length - 32))
    .digest()
    .copy(buf, buf.length - 32);
  return buf;
}

/** A parsed consolidated index: the packs it covers and a binary search over its records. */
export class ConsolidatedIndex {
  private readonly covered: Set<string>;

  private constructor(
    private readonly buf: Buffer,
    /** The packs it covers, by number. */
    readonly packs: readonly string[],
    /** How many chunks it lists. */
    readonly count: number,
    private readonly fanoutAt: number,
    private readonly recordsAt: number,
  ) {
    this.covered = new Set(packs);
  }

  /** Parse; null when it is torn, fails its check or is not one. */
  static decode(buf: Buffer): ConsolidatedIndex | null {
    if (buf.length < HEAD + FANOUT + 32 || !buf.subarray(0, MAGIC.length).equals(MAGIC)) return null;
    const packCount = buf.readUInt32LE(MAGIC.length);
    const count = buf.readUInt32LE(MAGIC.length + 4);
    const fanoutAt = HEAD + packCount * 8;
    const recordsAt = fanoutAt + FANOUT;
    if (buf.length !== recordsAt + count * RECORD + 32) return null;
    const body = buf.subarray(0, buf.length - 32);
    if (
      !createHash('sha256')
        .update(body)
        .digest()
        .equals(buf.subarray(buf.length - 32))
    )
      return null;
    if (buf.readUInt32LE(fanoutAt + 255 * 4) !== count) return null;
    const packs: string[] = [];
    for (let i = 0; i < packCount; i++) packs.push(buf.toString('hex', HEAD + i * 8, HEAD + i * 8 + 8));
    return new ConsolidatedIndex(buf, packs, count, fanoutAt, recordsAt);
  }

  /** Whether it covers pack `pack` (every chunk of that pack's index is in it, or a copy elsewhere is). */
  covers(pack: string): boolean {
    return this.covered.has(pack);
  }

  /** The record number of chunk `h`, or -1. */
  private find(h: string): number {
    const key = Buffer.from(h, 'hex');
    if (key.length !== 32) return -1;
    let lo = key[0] === 0 ? 0 : this.buf.readUInt32LE(this.fanoutAt + (key[0]! - 1) * 4);
    let hi = this.buf.readUInt32LE(this.fanoutAt + key[0]! * 4);
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const at = this.recordsAt + mid * RECORD;
      const c = key.compare(this.buf, at, at + 32);
      if (c === 0) return mid;
      if (c < 0) hi = mid;
      else lo = mid + 1;
    }
    return -1;
  }

  /** Whether it lists chunk `h`. */
  has(h: string): boolean {
    return this.find(h) >= 0;
  }

  /** Where it says chunk `h` lives (undefined: not listed, or its record is inconsistent). */
  locate(h: string): ChunkLocation | undefined {
    const i = this.find(h);
    return i < 0 ? undefined : this.record(i);
  }

  /** Record `i` as a location. */
  private record(i: number): ChunkLocation | undefined {
    const at = this.recordsAt + i * RECORD;
    const pack = this.packs[this.buf.readUInt32LE(at + 32)];
    const codec = this.buf[at + 54];
    if (pack === undefined || (codec !== 0 && codec !== 2)) return undefined;
    const loc: ChunkLocation = {
      pack,
      offset: this.buf.readUIntLE(at + 36, 6),
      length: this.buf.readUInt32LE(at + 42),
      codec,
      inner: this.buf.readUInt32LE(at + 46),
      rawLength: this.buf.readUInt32LE(at + 50),
    };
    const base = this.buf.readUInt32LE(at + 55);
    if (base === NO_BASE) return loc;
    if (base >= this.count) return undefined;
    const baseAt = this.recordsAt + base * RECORD;
    loc.base = this.buf.toString('hex', baseAt, baseAt + 32);
    return loc;
  }

  /** Every chunk it lists with its location, in hash order (verify and the next consolidation read them all). */
  *entries(): Generator<[string, ChunkLocation]> {
    for (let i = 0; i < this.count; i++) {
      const at = this.recordsAt + i * RECORD;
      const loc = this.record(i);
      if (loc) yield [this.buf.toString('hex', at, at + 32), loc];
    }
  }
}
