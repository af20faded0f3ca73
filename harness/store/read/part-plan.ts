// A part's chunk list resolved once per read: each distinct chunk numbered, located once, and its first and last
// use known, all in typed arrays, so the fast read plans its windows and block reads without a Map lookup, a string
// or an object per chunk and per window.
import type { PackReader } from './pack-reader.js';

/** The pack number of a chunk read through PackReader.readChunk (unlocated, or a delta on a missing base or a delta). */
export const SLOW = -1;

/** A hash's first 7 hex digits as a number (the slot it starts looking from in PartPlan's table). */
function hexKey(h: string): number {
  let k = 0;
  for (let i = 0; i < 7; i++) {
    const c = h.charCodeAt(i);
    k = (k << 4) | (c <= 57 ? c - 48 : (c | 32) - 87);
  }
  return k;
}

/** Distinct chunks of a chunk list with their locations; delta bases not in the list come after the list's own. */
export class PartPlan {
  /** The distinct chunk number at each position of the list. */
  readonly ids: Int32Array;
  /** Each distinct chunk's hash. */
  readonly hashes: string[] = [];
  /** Each distinct chunk's first and last position in the list (-1: a delta base the list does not hold). */
  first: Int32Array;
  last: Int32Array;
  /** Where each is stored: pack number (into packFiles; SLOW), block offset, stored length, codec, inner, rawLength. */
  pack: Int32Array;
  offset: Float64Array;
  length: Int32Array;
  codec: Uint8Array;
  inner: Int32Array;
  raw: Int32Array;
  /** The number of a delta's base (fetched whole in the same batch), -1 for a chunk stored whole. */
  base: Int32Array;
  /** The file of each pack number. */
  readonly packFiles: string[] = [];
  private readonly packNos = new Map<string, number>();
  /** Open addressing over hexKey: chunk numbers, -1 for free (cheaper than a Map of 64-digit strings). */
  private table: Int32Array;

  constructor(packs: PackReader, list: readonly string[]) {
    const n = list.length;
    this.table = new Int32Array(tableSize(n)).fill(-1);
    this.ids = new Int32Array(n);
    this.first = new Int32Array(n);
    this.last = new Int32Array(n);
    for (let i = 0; i < n; i++) {
      const h = list[i]!;
      const d = this.number(h);
      if (d === this.hashes.length) {
        this.hashes.push(h);
        this.first[d] = i;
      }
      this.last[d] = i;
      this.ids[i] = d;
    }
    const distinct = this.hashes.length;
    this.pack = new Int32Array(distinct);
    this.offset = new Float64Array(distinct);
    this.length = new Int32Array(distinct);
    this.codec = new Uint8Array(distinct);
    this.inner = new Int32Array(distinct);
    this.raw = new Int32Array(distinct);
    this.base = new Int32Array(distinct);
    // locate each once (the list's own, then bases it adds); a delta's base must be stored whole, else readChunk
    // reads the delta and says what is wrong
    let lastPack = '';
    let lastNo = -1;
    for (let d = 0; d < this.hashes.length; d++) {
      const loc = packs.locate(this.hashes[d]!);
      this.base[d] = -1;
      if (loc === undefined) {
        this.pack[d] = SLOW;
        continue;
      }
      if (loc.base !== undefined) {
        const baseLoc = packs.locate(loc.base);
        if (baseLoc === undefined || baseLoc.base !== undefined) {
          this.pack[d] = SLOW; // missing base or a chain
          continue;
        }
        const b = this.number(loc.base);
        if (b === this.hashes.length) this.addBase(loc.base);
        this.base[d] = b;
      }
      if (loc.pack !== lastPack) {
        lastPack = loc.pack;
        lastNo = this.packNo(packs, loc.pack);
      }
      this.pack[d] = lastNo;
      this.offset[d] = loc.offset;
      this.length[d] = loc.length;
      this.codec[d] = loc.codec;
      this.inner[d] = loc.inner;
      this.raw[d] = loc.rawLength;
    }
  }

  /** The number of hash `h`: its own if it has one, else the next free one (the caller adds it to `hashes`). */
  private number(h: string): number {
    const mask = this.table.length - 1;
    for (let s = hexKey(h) & mask; ; s = (s + 1) & mask) {
      const d = this.table[s]!;
      if (d < 0) return (this.table[s] = this.hashes.length);
      if (this.hashes[d] === h) return d;
    }
  }

  /** Add a delta base the list does not hold (room grows as needed; bases are few). */
  private addBase(h: string): void {
    const d = this.hashes.length;
    this.hashes.push(h);
    if (d >= this.pack.length) {
      const cap = 2 * d + 16;
      const grow = <T extends Int32Array | Float64Array | Uint8Array>(a: T, make: (n: number) => T): T => {
        const b = make(Math.max(cap, a.length)); // first and last may already hold a slot per list position
        b.set(a);
        return b;
      };
      this.first = grow(this.first, (k) => new Int32Array(k));
      this.last = grow(this.last, (k) => new Int32Array(k));
      this.pack = grow(this.pack, (k) => new Int32Array(k));
      this.offset = grow(this.offset, (k) => new Float64Array(k));
      this.length = grow(this.length, (k) => new Int32Array(k));
      this.codec = grow(this.codec, (k) => new Uint8Array(k));
      this.inner = grow(this.inner, (k) => new Int32Array(k));
      this.raw = grow(this.raw, (k) => new Int32Array(k));
      this.base = grow(this.base, (k) => new Int32Array(k));
    }
    this.first[d] = this.last[d] = -1;
    if (2 * this.hashes.length > this.table.length) this.rehash();
  }

  /** A table twice the size, for the bases added past the list's own chunks. */
  private rehash(): void {
    const old = this.hashes.length;
    this.table = new Int32Array(tableSize(2 * old)).fill(-1);
    const mask = this.table.length - 1;
    for (let d = 0; d < old; d++) {
      let s = hexKey(this.hashes[d]!) & mask;
      while (this.table[s]! >= 0) s = (s + 1) & mask;
      this.table[s] = d;
    }
  }

  /** The number of pack `pack` (its file added on first sight). */
  private packNo(packs: PackReader, pack: string): number {
    let p = this.packNos.get(pack);
    if (p === undefined) {
      this.packNos.set(pack, (p = this.packFiles.length));
      this.packFiles.push(packs.packFile(pack));
    }
    return p;
  }

  /** Whether chunks `d` and `e` lie in the same stored block (false for a chunk read the slow way). */
  sameBlock(d: number, e: number): boolean {
    return this.pack[d] !== SLOW && this.pack[d] === this.pack[e] && this.offset[d] === this.offset[e];
  }

  /** The chunks first used at positions `a` to `b` (exclusive), by number, in list order: each is fetched there. */
  firstUses(a: number, b: number): number[] {
    const out: number[] = [];
    for (let i = a; i < b; i++) if (this.first[this.ids[i]!] === i) out.push(this.ids[i]!);
    return out;
  }

  /**
   * The list cut into windows of at least `size` positions (the last may be shorter), each extended (up to twice
   * `size`) while the next chunk lies in the same stored block as its last, so a block is rarely decoded twice: the
   * end of each window.
   */
  windows(size: number): Int32Array {
    const ends: number[] = [];
    const n = this.ids.length;
    for (let a = 0; a < n;) {
      let b = Math.min(a + size, n);
      const lastId = this.ids[b - 1]!;
      while (b < n && b - a < 2 * size && this.sameBlock(this.ids[b]!, lastId)) b++;
      ends.push(b);
      a = b;
    }
    return Int32Array.from(ends);
  }
}

/** A power of two at least twice `n` (open addressing stays short). */
function tableSize(n: number): number {
  let size = 16;
  while (size < 2 * n) size *= 2;
  return size;
}
