// The LZ4 block decoder's copy paths, on blocks built by hand so each path is hit on purpose: overlapping matches at
// every offset 1..8 (and a few longer), short and long; long literals; a copy cut short at `want`; truncated input and
// damaged offsets (-1, nothing written outside the window). Each runs into a plain buffer and into a SharedArrayBuffer
// at every word alignment (the decoder then works in its own buffer and copies the result over once), and is checked
// against the plain bytes a byte-by-byte reference builds.
import { compressSync } from 'lz4-napi';
import { describe, expect, it } from 'vitest';
import { lz4Decode } from '../../../harness/store/read/lz4-block.js';
import { keystream } from '../../fixtures/store-content.mjs';
import { textPages } from '../../fixtures/text-pages.mjs';
import { rng } from '../../helpers/rng.js';

/** One LZ4 sequence: literals, then (unless it is the last) a match of `len` >= 4 bytes `off` back. */
interface Seq {
  lit: Uint8Array;
  off?: number;
  len?: number;
}

/** A length's extension bytes (255, 255, ..., rest) after a token nibble of 15. */
const ext = (n: number): number[] => [...Array<number>(Math.floor(n / 255)).fill(255), n % 255];

/** An LZ4-stored block (u32le plain size, then the sequences) and the plain bytes it stands for. */
function block(seqs: Seq[]): { z: Uint8Array; plain: Uint8Array } {
  const out: number[] = [];
  const plain: number[] = [];
  for (const s of seqs) {
    const ml = s.len === undefined ? 0 : s.len - 4;
    out.push((Math.min(s.lit.length, 15) << 4) | Math.min(ml, 15));
    if (s.lit.length >= 15) out.push(...ext(s.lit.length - 15));
    out.push(...s.lit);
    plain.push(...s.lit);
    if (s.off === undefined || s.len === undefined) continue;
    out.push(s.off & 255, s.off >> 8);
    if (ml >= 15) out.push(...ext(ml - 15));
    for (let k = 0; k < s.len; k++) plain.push(plain[plain.length - s.off]!);
  }
  const size = [plain.length & 255, (plain.length >> 8) & 255, (plain.length >> 16) & 255, plain.length >>> 24];
  return { z: Uint8Array.from([...size, ...out]), plain: Uint8Array.from(plain) };
}

const bytes = (n: number, seed: number): Uint8Array => Uint8Array.from(keystream(`lz4-${seed}`, n));
const CANARY = 0xee;
const PAD = 24;

/** Destinations for `n` bytes at `at`: a plain buffer, and a SharedArrayBuffer view at each alignment 0..7. */
function destinations(n: number): Array<[string, Uint8Array, number]> {
  const plain: [string, Uint8Array, number] = ['plain', new Uint8Array(n + 2 * PAD).fill(CANARY), PAD];
  const shared = Array.from({ length: 8 }, (_, a): [string, Uint8Array, number] => {
    const sab = new SharedArrayBuffer(n + 2 * PAD + 8);
    return [`shared+${a}`, new Uint8Array(sab, a, n + 2 * PAD).fill(CANARY), PAD + (a % 3)];
  });
  return [plain, ...shared];
}

/** Decode `want` bytes of `z` into every destination: the result, and whether the bytes outside the window are untouched. */
function decodeEverywhere(
  z: Uint8Array,
  want: number,
): Array<{ where: string; n: number; got: Uint8Array; clean: boolean }> {
  return destinations(want).map(([where, dst, at]) => {
    const n = lz4Decode(z, dst, at, want);
    const outside = [...dst.subarray(0, at), ...dst.subarray(at + want)];
    return { where, n, got: dst.slice(at, at + want), clean: outside.every((b) => b === CANARY) };
  });
}

function expectDecodes(z: Uint8Array, plain: Uint8Array, want = plain.length): void {
  for (const r of decodeEverywhere(z, want)) {
    expect([r.where, r.n, r.clean]).toEqual([r.where, want, true]);
    expect(Buffer.from(r.got).equals(plain.subarray(0, want)), r.where).toBe(true);
  }
}

function expectRefused(z: Uint8Array, want: number): void {
  for (const r of decodeEverywhere(z, want)) expect([r.where, r.n, r.clean]).toEqual([r.where, -1, true]);
}

describe('lz4Decode copy paths', () => {
  const lengths = [4, 5, 9, 17, 32, 33, 64, 300, 5000];
  it.each([1, 2, 3, 4, 5, 6, 7, 8, 13, 100])('overlapping matches at offset %i, short and long', (off) => {
    const seqs: Seq[] = lengths.map((len, i) => ({ lit: bytes(i === 0 ? Math.max(off, 1100) : 3, off + i), off, len }));
    const { z, plain } = block([...seqs, { lit: bytes(7, 99) }]);
    expectDecodes(z, plain);
    // a long overlapping match cut short by `want`, mid-pattern
    const cutAt = plain.length - 7 - 5000 + 2 * off + 1;
    expectDecodes(z, plain, cutAt);
  });

  it('long literals (one extension byte, many, and one of 70,000 bytes) and non-overlapping long matches', () => {
    const { z, plain } = block([
      { lit: bytes(15, 1), off: 15, len: 19 },
      { lit: bytes(270, 2), off: 285, len: 4 + 15 + 255 },
      { lit: bytes(70_000, 3), off: 60_000, len: 40_000 },
      { lit: bytes(16, 4) },
    ]);
    expectDecodes(z, plain);
    for (const want of [0, 1, 15, 16, 300, 1024, 70_100, 110_000, plain.length - 1]) expectDecodes(z, plain, want);
  });

  it('decodes what lz4-napi encodes into shared memory, with its own buffer reused across sizes', () => {
    const mixed = Buffer.concat([textPages(21, 20), keystream('s', 9000), Buffer.alloc(5000, 1), textPages(22, 3)]);
    for (const plain of [mixed, textPages(23, 1), mixed.subarray(0, 70_000), Buffer.alloc(2000, 7)]) {
      expectDecodes(compressSync(plain), plain);
    }
    // the shared path ran (its own buffer exists); a shorter block after a longer one decoded right above
    expect((lz4Decode as typeof lz4Decode & { scratch?: Uint8Array }).scratch).toBeInstanceOf(Uint8Array);
  });

  it('returns -1 on every truncation of a block of all the paths, writing nothing outside its window', () => {
    const { z, plain } = block([
      { lit: bytes(300, 5), off: 3, len: 2000 },
      { lit: bytes(2, 6), off: 1, len: 40 },
      { lit: bytes(20, 7), off: 1500, len: 1200 },
      { lit: bytes(9, 8) },
    ]);
    expectDecodes(z, plain);
    for (let cut = 0; cut < z.length; cut += cut < 40 || cut > z.length - 40 ? 1 : 37) {
      expectRefused(z.subarray(0, cut), plain.length);
    }
  });

  it('returns -1 on a damaged offset: zero, or reaching before the window (even with bytes there)', () => {
    const good: Seq[] = [{ lit: bytes(1200, 9), off: 700, len: 600 }, { lit: bytes(5, 10) }];
    const { z, plain } = block(good);
    expectDecodes(z, plain);
    const offAt = 4 + 1 + ext(1200 - 15).length + 1200; // token, literal length, literals: then the offset
    expect([z[offAt], z[offAt + 1]]).toEqual([700 & 255, 700 >> 8]); // the test finds the offset it damages
    for (const off of [0, 1201, 1200 + PAD, 0xffff]) {
      const bad = Uint8Array.from(z);
      bad[offAt] = off & 255;
      bad[offAt + 1] = off >> 8;
      expectRefused(bad, plain.length);
    }
    const edge = Uint8Array.from(z);
    edge[offAt] = 1200 & 255;
    edge[offAt + 1] = 1200 >> 8; // exactly back to the window's first byte: fine
    expect(decodeEverywhere(edge, plain.length).map((r) => [r.n, r.clean])).toEqual(
      Array.from({ length: 9 }, () => [plain.length, true]),
    );
  });

  it('never throws or writes outside its window on randomly damaged blocks (shared and plain)', () => {
    const plain = Buffer.concat([textPages(24, 6), keystream('r', 3000), Buffer.alloc(700, 2)]);
    const z = compressSync(plain);
    const next = rng(61);
    for (let i = 0; i < 150; i++) {
      const bad = Uint8Array.from(z);
      for (let k = 0; k < 2; k++) bad[4 + Math.floor(next() * (bad.length - 4))] = Math.floor(next() * 256);
      for (const r of decodeEverywhere(bad, plain.length)) {
        expect([-1, plain.length]).toContain(r.n);
        expect(r.clean).toBe(true);
      }
    }
  });
});
