// The read tools' LZ4 step (block-job.ts makeTools): lz4-napi's native decoder first, the JS decoder (lz4-block.ts) for
// any block the native one refuses or decodes to another size than the block declares. Both give the same bytes for a
// good block; a refused or mis-sized native decode falls back (negative controls with a stand-in native decoder that
// throws, or returns the wrong size).
import crypto from 'node:crypto';
import fs from 'node:fs';
import zlib from 'node:zlib';
import { compressSync, uncompressSync } from 'lz4-napi';
import { describe, expect, it } from 'vitest';
import { makeTools } from '../../../harness/store/read/block-job.js';
import { lz4Decode } from '../../../harness/store/read/lz4-block.js';

/** A block as packs keep it: lz4-napi's size-prefixed form of `plain`. */
const text = Buffer.from('the session agent checkpoint restore kernel page store chunk verified '.repeat(900));
const block = compressSync(text);

function tools(native?: (src: Uint8Array) => Uint8Array) {
  const calls = { native: 0 };
  const t = makeTools({
    fs,
    zlib,
    crypto,
    lz4Decode,
    lz4Native:
      native === undefined
        ? undefined
        : (s) => {
            calls.native++;
            return native(s);
          },
  });
  return { t, calls };
}

describe('LZ4 step of the read tools', () => {
  it('the native decoder gives the block back exactly, and the JS decoder gives the same bytes', () => {
    const real = (s: Uint8Array): Uint8Array => uncompressSync(Buffer.from(s.buffer, s.byteOffset, s.byteLength));
    const { t, calls } = tools(real);
    const into = Buffer.alloc(text.length + 16);
    expect(t.lz4(block, into, 16, text.length)).toBe(text.length);
    expect(calls.native).toBe(1);
    expect(into.subarray(16).equals(text)).toBe(true);
    const js = Buffer.alloc(text.length);
    expect(tools().t.lz4(block, js, 0, text.length)).toBe(text.length);
    expect(js.equals(text)).toBe(true);
    // the first `want` bytes only
    const part = Buffer.alloc(100);
    expect(t.lz4(block, part, 0, 100)).toBe(100);
    expect(part.equals(text.subarray(0, 100))).toBe(true);
  });

  it('negative controls: a native decode that throws, or returns another size than declared, is judged by the JS decoder', () => {
    const into = Buffer.alloc(text.length);
    const thrower = tools(() => {
      throw new Error('refused');
    });
    expect(thrower.t.lz4(block, into, 0, text.length)).toBe(text.length);
    expect(into.equals(text)).toBe(true);
    expect(thrower.calls.native).toBe(1);
    const short = tools(() => Buffer.alloc(10, 1));
    into.fill(0);
    expect(short.t.lz4(block, into, 0, text.length)).toBe(text.length);
    expect(into.equals(text)).toBe(true); // the JS decoder's bytes, not the stand-in's
    // a damaged block both refuse: -1, as the JS decoder alone says
    const bad = Buffer.from(block);
    bad.writeUInt32LE(text.length * 2, 0); // declares twice its size
    expect(
      tools((s) => uncompressSync(Buffer.from(s))).t.lz4(bad, Buffer.alloc(text.length * 2), 0, text.length * 2),
    ).toBe(lz4Decode(bad, Buffer.alloc(text.length * 2), 0, text.length * 2));
    expect(lz4Decode(bad, Buffer.alloc(text.length * 2), 0, text.length * 2)).toBe(-1);
  });
});
