// Content-defined chunking (the store's CdcCutter): deterministic, lossless, the same streamed or whole, sizes within
// bounds, and boundaries that survive shifted bytes (where the FixedCutter's 4 KiB chunks share nothing: the negative
// control).
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { CDC_MAX, CDC_MIN } from '../../../harness/store/chunking/cdc.js';
import { CdcCutter, type Cutter, FixedCutter, type ChunkFn } from '../../../harness/store/chunking/ingest.js';
import { createRng } from '../../../harness/stats/random.js';

function randomBytes(n: number, seed: number): Buffer {
  const rng = createRng(seed);
  const b = Buffer.alloc(n);
  for (let i = 0; i < n; i += 4) b.writeUInt32LE(rng.uint32(), i);
  return b;
}

/** The chunks a cutter makes of `data` pushed in pieces of `sizes` (cycled; whole when none), copied as they come. */
function cut(make: (emit: ChunkFn) => Cutter, data: Buffer, sizes: number[] = [data.length]): Buffer[] {
  const out: Buffer[] = [];
  const cutter = make((c) => out.push(Buffer.from(c)));
  for (let off = 0, i = 0; off < data.length; i++) {
    const n = sizes[i % sizes.length]!;
    cutter.push(data.subarray(off, off + n));
    off += n;
  }
  cutter.end();
  return out;
}
const cdc = (data: Buffer, sizes?: number[]): Buffer[] => cut((e) => new CdcCutter(e), data, sizes);
const fixed = (data: Buffer): Buffer[] => cut((e) => new FixedCutter(e), data);

const hashes = (cs: Buffer[]): Set<string> => new Set(cs.map((c) => createHash('sha256').update(c).digest('hex')));
const shared = (a: Buffer[], b: Buffer[]): number => {
  const hb = hashes(b);
  return [...hashes(a)].filter((h) => hb.has(h)).length / hashes(a).size;
};

describe('CdcCutter', () => {
  const data = randomBytes(1 << 20, 7);

  it('is lossless and deterministic, with every chunk but the last within [min, max]', () => {
    const a = cdc(data);
    expect(Buffer.concat(a).equals(data)).toBe(true);
    expect(cdc(data).map((c) => c.length)).toEqual(a.map((c) => c.length));
    for (const c of a.slice(0, -1)) {
      expect(c.length).toBeGreaterThanOrEqual(CDC_MIN);
      expect(c.length).toBeLessThanOrEqual(CDC_MAX);
    }
    const avg = data.length / a.length;
    expect(avg).toBeGreaterThan(3000);
    expect(avg).toBeLessThan(6500);
  });

  it('cuts a stream read in odd pieces exactly as the whole buffer', () => {
    const whole = cdc(data).map((c) => c.length);
    const streamed = cdc(data, [1, 4095, 70_001, 333, 16_384]).map((c) => c.length);
    expect(streamed).toEqual(whole);
  });

  it('keeps its boundaries when 8 bytes are inserted upstream; fixed 4 KiB chunks do not (negative control)', () => {
    const shifted = Buffer.concat([randomBytes(8, 99), data]);
    const cdcShare = shared(cdc(data), cdc(shifted));
    const fixedShare = shared(fixed(data), fixed(shifted));
    expect(cdcShare).toBeGreaterThan(0.95);
    expect(fixedShare).toBeLessThan(0.01);
  });

  it('dedups a migration-like stream where fixed chunks cannot (negative control)', () => {
    // QEMU 7.2 RAM records: an 8-byte header, then a 4 KiB page, or a single fill byte for a zero page. Snapshot b
    // dirties 4 pages and fills page 7, zero in a: every later record moves by 4095 bytes.
    const record = (i: number, v: number, zero: boolean): Buffer =>
      Buffer.concat([
        Buffer.from(String(i).padStart(8, '0')),
        zero ? Buffer.from([0]) : randomBytes(4096, i * 1000 + v),
      ]);
    const snap = (dirty: Set<number>, filled: Set<number>): Buffer =>
      Buffer.concat(
        Array.from({ length: 512 }, (_, i) => record(i, dirty.has(i) ? 1 : 0, i % 7 === 0 && !filled.has(i))),
      );
    const a = snap(new Set(), new Set());
    const b = snap(new Set([100, 200, 300, 511]), new Set([7]));
    const cdcShare = shared(cdc(b), cdc(a));
    const fixedShare = shared(fixed(b), fixed(a));
    expect(cdcShare).toBeGreaterThan(0.9);
    expect(fixedShare).toBeLessThan(0.2);
  });
});
