// The one varint codec: exact bytes for boundary values, round trips, and rejection of truncated or oversized input.
import { describe, expect, it } from 'vitest';
import {
  ByteCursor,
  decodeVarints,
  encodeVarint,
  GrowBuffer,
  MAX_VARINT_BYTES,
  writeVarint,
} from '../../harness/core/bytes.js';

const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');

describe('varint (unsigned LEB128)', () => {
  const cases: Array<[number, string]> = [
    [0, '00'],
    [1, '01'],
    [127, '7f'],
    [128, '8001'],
    [300, 'ac02'],
    [16383, 'ff7f'],
    [16384, '808001'],
    [2 ** 32, '8080808010'],
    [Number.MAX_SAFE_INTEGER, 'ffffffffffffff0f'],
  ];

  it.each(cases)('%d encodes as %s and decodes back', (n, bytes) => {
    expect(hex(encodeVarint(n))).toBe(bytes);
    expect(decodeVarints(Buffer.from(bytes, 'hex'))).toEqual([n]);
  });

  it('writes in place, returns the offset after it, and GrowBuffer appends the same bytes', () => {
    const buf = Buffer.alloc(12, 0xee);
    expect(writeVarint(buf, 2, 16384)).toBe(5);
    expect(hex(buf.subarray(0, 6))).toBe('eeee808001ee');
    const g = new GrowBuffer(1);
    for (const [n] of cases) g.appendVarint(n);
    expect(hex(g.view())).toBe(cases.map(([, b]) => b).join(''));
    expect(decodeVarints(g.view())).toEqual(cases.map(([n]) => n));
  });

  it('a cursor reads varints between other fields', () => {
    const buf = Buffer.from('aa8001bbff7f', 'hex');
    const cur = new ByteCursor(buf, 1);
    expect(cur.varint()).toBe(128);
    cur.at++;
    expect(cur.varint()).toBe(16383);
    expect(cur.left).toBe(0);
  });

  it('negative control: truncated, overlong and out-of-range input is rejected', () => {
    expect(() => decodeVarints(Buffer.from('8080', 'hex'))).toThrow(/truncated/);
    expect(() => decodeVarints(Buffer.from('0180', 'hex'))).toThrow(/truncated/);
    expect(() => new ByteCursor(Buffer.from('ff7f', 'hex'), 0, 1).varint()).toThrow(/truncated/);
    expect(() => decodeVarints(Buffer.alloc(MAX_VARINT_BYTES + 1, 0x80))).toThrow(/longer than 8 bytes/);
    expect(() => decodeVarints(Buffer.from('ffffffffffffff1f', 'hex'))).toThrow(/beyond 2\^53/);
    expect(() => encodeVarint(-1)).toThrow(RangeError);
    expect(() => encodeVarint(1.5)).toThrow(RangeError);
    expect(() => encodeVarint(2 ** 53)).toThrow(RangeError);
  });
});
