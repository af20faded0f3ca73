// The pool host's read warm-up: what it reads must take every branch a restore's read takes (V8 compiles optimised code
// for the shapes it has seen; a branch first taken by a restore deoptimises it and is compiled again on the restore's
// clock: bench/README.md "resume-floor", 2026-12-06). Each shape is asserted on the store the warm-up writes, so a
// simpler warm-up (no raw blocks, one pack, no zero runs) fails here, not silently in a benchmark.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { compressSync } from 'lz4-napi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decoderShapes, warmReadPath, writeWarmUpStore } from '../../harness/session/read-warm-up.js';
import type { ChunkLocation } from '../../harness/store/index/pack-index.js';
import { lz4Decode } from '../../harness/store/read/lz4-block.js';
import { ZERO_PAGE_SHA256 } from '../../harness/store/sha256.js';
import { Store } from '../../harness/store/store.js';
import type { Manifest } from '../../harness/store/manifest.js';

let root: string;
let store: Store;
let newest: Manifest;
let ram: string[];
const at = (h: string): ChunkLocation => {
  const loc = store.internals.index.locate(h);
  if (loc === undefined) throw new Error(`chunk ${h} is not located`);
  return loc;
};

beforeAll(async () => {
  root = mkdtempSync(path.join(os.tmpdir(), 'warm-up-test-'));
  await writeWarmUpStore(root, 16);
  store = Store.open(root, { purpose: 'test' });
  newest = store.latest()!;
  ram = newest.parts.find((p) => p.name === 'ram')!.chunks;
});
afterAll(() => {
  store.close();
  rmSync(root, { recursive: true, force: true });
});

describe('the read warm-up covers the shapes of a restore', () => {
  it('writes a second checkpoint whose RAM is 16 MiB of 4 KiB pages', () => {
    expect(newest.seq).toBe(2);
    expect(ram.length).toBe(4096);
  });

  it('has RAM blocks stored raw (they do not shrink) and blocks stored as LZ4', () => {
    const codecs = new Set(ram.map((h) => (h === ZERO_PAGE_SHA256 ? -1 : at(h).codec)));
    expect(codecs).toContain(0);
    expect(codecs).toContain(3);
  });

  it('has its chunks in two packs, out of order along the part (the part plan sorts its batches)', () => {
    const data = ram.filter((h) => h !== ZERO_PAGE_SHA256).map(at);
    expect(new Set(data.map((l) => l.pack)).size).toBeGreaterThanOrEqual(2);
    const backwards = data.filter(
      (l, i) =>
        i > 0 && (l.pack < data[i - 1]!.pack || (l.pack === data[i - 1]!.pack && l.offset < data[i - 1]!.offset)),
    );
    expect(backwards.length).toBeGreaterThan(0);
  });

  it('has long runs of the zero page (holes) and a page written to several offsets', () => {
    let run = 0;
    let longest = 0;
    for (const h of ram) longest = Math.max(longest, (run = h === ZERO_PAGE_SHA256 ? run + 1 : 0));
    expect(longest).toBeGreaterThanOrEqual(384);
    const uses = new Map<string, number>();
    for (const h of ram) if (h !== ZERO_PAGE_SHA256) uses.set(h, (uses.get(h) ?? 0) + 1);
    expect(Math.max(...uses.values())).toBeGreaterThanOrEqual(4);
  });

  it('has chunk list leaves stored as LZ4 (read by this thread decoder when a restore resolves the checkpoint)', () => {
    expect((newest.listChunks ?? []).map(at).some((l) => l.codec === 3)).toBe(true);
  });

  it("gives this thread's decoder shapes it decodes byte for byte, into plain and shared memory", () => {
    for (const plain of decoderShapes()) {
      const block = compressSync(plain);
      expect(block.length).toBeLessThan(plain.length); // compressible: the decoder's copy branches are taken
      for (const out of [Buffer.alloc(plain.length), new Uint8Array(new SharedArrayBuffer(plain.length))]) {
        expect(lz4Decode(block, out, 0, plain.length)).toBe(plain.length);
        expect(Buffer.compare(plain, out)).toBe(0);
      }
    }
  });

  it('runs whole and leaves nothing in its scratch folder', async () => {
    const scratch = mkdtempSync(path.join(os.tmpdir(), 'warm-up-run-'));
    try {
      await warmReadPath(scratch, 8);
      expect(readdirSync(scratch)).toEqual([]);
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  });
});
