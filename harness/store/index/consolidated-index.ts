// The consolidated chunk index (packs/chunks.cix): every chunk of the packs it covers, sorted by hash in fixed-size
// records, so a lookup is a binary search in one Buffer and opening it costs one read and one hash check, not one
// pack index per checkpoint ever written; sealed (sealed-file.ts). A cache beside the pack indexes (they stay the truth): torn, failing its
// check, or stale (a pack it covers has no index file any more), it is ignored and the pack indexes are read.
import type { ChunkLocation } from './pack-index.js';
import { SEAL_BYTES, sealInPlace, unseal } from '../sealed-file.js';

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

/** Where record `i` starts. */
function recordAt(recordsAt: number, i: number): number {
  return recordsAt + i * RECORD;
}

/** Binary search for the record of hash `key` among records [lo, hi) of `buf`; -1 when absent. */
function search(buf: Buffer, recordsAt: number, lo: number, hi: number, key: Buffer): number {
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const at = recordAt(recordsAt, mid);
    const c = key.compare(buf, at, at + 32);
    if (c === 0) return mid;
    if (c < 0) hi = mid;
    else lo = mid + 1;
  }
  return -1;
}

/** Write one record at `at` (its base reference is filled in later). */
function writeRecord(buf: Buffer, at: number, h: string, pack: number, loc: ChunkLocation): void {
  buf.write(h, at, 'hex');
  buf.writeUInt32LE(pack, at + 32);
  buf.writeUIntLE(loc.offset, at + 36, 6);
  buf.writeUInt32LE(loc.length, at + 42);
  buf.writeUInt32LE(loc.inner, at + 46);
  buf.writeUInt32LE(loc.rawLength, at + 50);
  buf[at + 54] = loc.codec;
  buf.writeUInt32LE(NO_BASE, at + 55);
}

/**
 * The bytes of a consolidated index covering `old`'s packs (if any) and `packs`: `old`'s records copied as they are,
 * merged in hash order with `entries` it lacks (those in `packs`), so the cost is a copy of the old file plus the new
 * chunks, with no map of every chunk. A delta whose base is not listed, or is itself a delta, is left out (a lookup
 * of it then reads the pack indexes, as it would anyway).
 */
export function encodeConsolidated(
  packs: readonly string[],
  entries: ReadonlyMap<string, ChunkLocation>,
  old: ConsolidatedIndex | null = null,
): Buffer {
  const allPacks = [...(old?.packs ?? []), ...packs];
  const packNo = new Map(allPacks.map((p, i) => [p, i]));
  const ours = (loc: ChunkLocation | undefined): loc is ChunkLocation => loc !== undefined && packNo.has(loc.pack);
  const wholeBase = (b: string): boolean => {
    const inOld = old?.baseRefOf(b);
    if (inOld !== undefined) return inOld === NO_BASE;
    const loc = entries.get(b);
    return ours(loc) && loc.base === undefined;
  };
  const fresh = [...entries.keys()]
    .filter((h) => {
      const loc = entries.get(h);
      return ours(loc) && !old?.has(h) && (loc.base === undefined || wholeBase(loc.base));
    })
    .sort();
  const oldCount = old?.count ?? 0;
  const count = oldCount + fresh.length;
  const fanoutAt = HEAD + allPacks.length * 8;
  const recordsAt = fanoutAt + FANOUT;
  const buf = Buffer.alloc(recordsAt + count * RECORD + SEAL_BYTES);
  MAGIC.copy(buf);
  buf.writeUInt32LE(allPacks.length, MAGIC.length);
  buf.writeUInt32LE(count, MAGIC.length + 4);
  allPacks.forEach((p, i) => buf.write(p, HEAD + i * 8, 'hex'));
  const oldToNew = new Uint32Array(oldCount);
  const freshAt: number[] = [];
  const key = Buffer.alloc(32);
  for (let i = 0, j = 0, k = 0; k < count; k++) {
    if (j < fresh.length) key.write(fresh[j]!, 'hex');
    if (i < oldCount && (j >= fresh.length || old!.compareRecord(i, key) < 0)) {
      old!.copyRecord(i, buf, recordAt(recordsAt, k));
      oldToNew[i++] = k;
    } else {
      const loc = entries.get(fresh[j]!)!;
      writeRecord(buf, recordAt(recordsAt, k), fresh[j++]!, packNo.get(loc.pack)!, loc);
      freshAt.push(k);
    }
  }
  for (let i = 0; i < oldCount; i++) {
    const at = recordAt(recordsAt, oldToNew[i]!) + 55;
    const ref = buf.readUInt32LE(at);
    if (ref !== NO_BASE) buf.writeUInt32LE(ref < oldCount ? oldToNew[ref]! : NO_BASE, at);
  }
  fresh.forEach((h, j) => {
    const base = entries.get(h)!.base;
    if (base === undefined) return;
    const ref = search(buf, recordsAt, 0, count, Buffer.from(base, 'hex'));
    buf.writeUInt32LE(ref < 0 ? NO_BASE : ref, recordAt(recordsAt, freshAt[j]!) + 55);
  });
  const fanout = new Uint32Array(256);
  for (let k = 0; k < count; k++) fanout[buf[recordAt(recordsAt, k)]!]!++;
  for (let b = 0, sum = 0; b < 256; b++) buf.writeUInt32LE((sum += fanout[b]!), fanoutAt + b * 4);
  return sealInPlace(buf);
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
    if (buf.length < HEAD + FANOUT + SEAL_BYTES || !buf.subarray(0, MAGIC.length).equals(MAGIC)) return null;
    const packCount = buf.readUInt32LE(MAGIC.length);
    const count = buf.readUInt32LE(MAGIC.length + 4);
    const fanoutAt = HEAD + packCount * 8;
    const recordsAt = fanoutAt + FANOUT;
    if (buf.length !== recordsAt + count * RECORD + SEAL_BYTES || typeof unseal(buf) === 'string') return null;
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
    const lo = key[0] === 0 ? 0 : this.buf.readUInt32LE(this.fanoutAt + (key[0]! - 1) * 4);
    return search(this.buf, this.recordsAt, lo, this.buf.readUInt32LE(this.fanoutAt + key[0]! * 4), key);
  }

  /** Chunk `h`'s base reference (NO_BASE: stored whole), or undefined when it is not listed (for encodeConsolidated). */
  baseRefOf(h: string): number | undefined {
    const i = this.find(h);
    return i < 0 ? undefined : this.buf.readUInt32LE(recordAt(this.recordsAt, i) + 55);
  }

  /** Record `i`'s hash compared with `key` (for encodeConsolidated's merge). */
  compareRecord(i: number, key: Buffer): number {
    const at = recordAt(this.recordsAt, i);
    return this.buf.compare(key, 0, 32, at, at + 32);
  }

  /** Copy record `i`'s bytes into `to` at `at` (for encodeConsolidated's merge). */
  copyRecord(i: number, to: Buffer, at: number): void {
    const from = recordAt(this.recordsAt, i);
    this.buf.copy(to, at, from, from + RECORD);
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
    if (pack === undefined || (codec !== 0 && codec !== 2 && codec !== 3)) return undefined;
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
