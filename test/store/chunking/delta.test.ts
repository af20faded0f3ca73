// Sub-page deltas: a page that changed in a few bytes since the previous checkpoint is stored as the 256-byte blocks
// that differ from its base, read back byte-identical (also after the store is reopened), reported by verify when its
// base or its own bytes are damaged, and kept readable by gc when only the newest checkpoint stays.
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { applyDelta, DELTA_BLOCK, encodeDelta } from '../../../harness/store/chunking/delta.js';
import { gcStore } from '../../../harness/store/gc.js';
import { PageKeys } from '../../../harness/store/chunking/qemu-pages.js';
import type { Manifest } from '../../../harness/store/manifest.js';
import { type Compression, Store } from '../../../harness/store/store.js';
import { storeStats, verifyStore } from '../../../harness/store/check/verify.js';
import { guestStream } from '../../fixtures/guest-stream.mjs';
import { keystream } from '../../fixtures/store-content.mjs';
import { sha } from '../../helpers/bytes.js';
import { rng } from '../../helpers/rng.js';
import { flipStoredByte } from '../../helpers/store.js';
import { fixturePath } from '../../helpers/paths.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'soak-delta-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

async function put(store: Store, seq: number): Promise<Manifest> {
  const w = store.begin(seq);
  await w.put('ram', guestStream(seq), { chunking: 'qemu-pages' });
  return w.commit();
}

/** Page chunks of a checkpoint's ram part that are stored as deltas, and the bases they name. */
function deltas(store: Store, m: Manifest): Array<{ hash: string; base: string }> {
  const out: Array<{ hash: string; base: string }> = [];
  for (const h of new Set(m.parts[0]!.chunks)) {
    const base = store.locate(h)?.base;
    if (base !== undefined) out.push({ hash: h, base });
  }
  return out;
}

describe('PageKeys', () => {
  it('finds each key asked in ascending order, out of order, or missing; a stream out of order keeps its last copy', () => {
    const asc = PageKeys.of([0, 4096, 8192, 20480], ['a', 'b', 'c', 'd']);
    const find = asc.lookup();
    expect([0, 4096, 12288, 20480, 24576].map(find)).toEqual(['a', 'b', undefined, 'd', undefined]);
    expect([8192, 0, 8192, 4096].map(find)).toEqual(['c', 'a', 'c', 'b']); // backwards: binary search
    // Two iterations of one stream (a page sent twice, the second copy newer): sorted, the later hash wins.
    const twice = PageKeys.of([0, 8192, 4096, 0], ['old', 'c', 'b', 'new']);
    expect([twice.keys, twice.hashes]).toEqual([
      [0, 4096, 8192],
      ['new', 'b', 'c'],
    ]);
    expect([0, 4096, 8192].map(twice.lookup())).toEqual(['new', 'b', 'c']);
    expect(PageKeys.EMPTY.lookup()(0)).toBeUndefined();
  });
});

describe('encodeDelta / applyDelta', () => {
  it('rebuilds the chunk exactly for any set of changed blocks, and declines when more than half differs', () => {
    const next = rng(0xde17a);
    const int = (n: number): number => Math.floor(next() * n);
    for (let trial = 0; trial < 200; trial++) {
      const base = Buffer.from(Array.from({ length: 4096 }, () => int(256)));
      const data = Buffer.from(base);
      const changes = int(12);
      for (let k = 0; k < changes; k++) data[int(4096)]! ^= 1 + int(255);
      const d = encodeDelta(data, base);
      const differing = new Set<number>();
      for (let i = 0; i < 4096; i++) if (data[i] !== base[i]) differing.add(Math.floor(i / DELTA_BLOCK));
      if (2 + differing.size * DELTA_BLOCK > 2048) expect(d).toBeNull();
      else {
        expect(d!.length).toBe(2 + differing.size * DELTA_BLOCK);
        expect(applyDelta(base, d!)!.equals(data)).toBe(true);
      }
    }
  });

  it('refuses a delta that does not fit its base (short, extra bytes, bits past the last block)', () => {
    const base = Buffer.alloc(4096, 1);
    const data = Buffer.from(base);
    data[300] = 9;
    const d = encodeDelta(data, base)!;
    expect(applyDelta(base, d.subarray(0, d.length - 1))).toBeNull();
    expect(applyDelta(base, Buffer.concat([d, Buffer.alloc(1)]))).toBeNull();
    const tail = Buffer.from(base);
    tail[4095] = 9;
    expect(applyDelta(Buffer.alloc(4000, 1), encodeDelta(tail, base)!)).toBeNull(); // block 15 is 160 bytes there, not 256
    // A 1000-byte chunk has 4 blocks: a bitmap bit for a fifth is refused.
    const small = Buffer.alloc(1000, 2);
    const changed = Buffer.from(small);
    changed[0] = 3;
    const ds = encodeDelta(changed, small)!;
    expect(applyDelta(small, ds)!.equals(changed)).toBe(true);
    ds[0]! |= 0x10;
    expect(applyDelta(small, ds)).toBeNull();
  });
});

describe.each<Compression>(['none', 'deflate'])('deltas in the store (compression %s)', (compression) => {
  it('stores small page changes as deltas against the previous checkpoint and reads every checkpoint back', async () => {
    const store = Store.open(dir, { compression });
    const ms: Manifest[] = [];
    for (let seq = 1; seq <= 4; seq++) ms.push(await put(store, seq));
    expect(deltas(store, ms[0]!)).toEqual([]); // nothing to build on yet
    for (const m of ms.slice(1)) {
      const ds = deltas(store, m);
      // Six pages change in 8 bytes each per checkpoint (fewer when one of them is a zero page or was rewritten).
      expect(ds.length).toBeGreaterThanOrEqual(4);
      for (const { base } of ds) expect(store.locate(base)!.base).toBeUndefined(); // bases are whole chunks
    }
    for (const m of ms) expect(sha(await store.reader(m).get('ram'))).toBe(sha(guestStream(m.seq)));
    // Accounting: checkpoint 2's deltas are all new in it (checkpoint 1 has none), and `soak store stats` shows them.
    expect(ms[1]!.newDeltas).toBe(deltas(store, ms[1]!).length);
    expect(storeStats(store).checkpoints.map((r) => r.newDeltas)).toEqual(ms.map((m) => m.newDeltas));
    // Checkpoint 2 stores its rewritten page whole, its small changes as deltas: far less than 7 pages.
    if (compression === 'none') expect(ms[1]!.storedBytes).toBeLessThan(2 * 4096 + 6 * 300 + 2000);
    expect(verifyStore(store).problems).toEqual([]);
    store.close();
  });

  it('with deltas off every new page is stored whole', async () => {
    const store = Store.open(dir, { compression, deltas: false });
    const ms: Manifest[] = [];
    for (let seq = 1; seq <= 3; seq++) ms.push(await put(store, seq));
    for (const m of ms) expect(deltas(store, m)).toEqual([]);
    expect(sha(await store.reader(ms[2]!).get('ram'))).toBe(sha(guestStream(3)));
    store.close();
  });

  it('after a reopen the next checkpoint still finds its bases (page keys rebuilt from the newest manifest)', async () => {
    const first = Store.open(dir, { compression });
    for (let seq = 1; seq <= 2; seq++) await put(first, seq);
    first.close();
    const again = Store.open(dir, { compression });
    // warmPageKeys(m) takes the keys of the checkpoint it is given (a host passes the one it just restored).
    const [m1, m2] = again.list();
    const pagesOf = (m: Manifest): string[] =>
      m.parts[0]!.chunks.slice(m.parts[0]!.layout!.metaChunks + m.parts[0]!.layout!.mapChunks);
    const warmed = Store.open(dir, { compression });
    warmed.warmPageKeys(m1);
    expect(warmed.previousPages('ram').hashes).toEqual(pagesOf(m1!));
    warmed.close();
    expect(again.previousPages('ram').hashes).toEqual(pagesOf(m2!)); // not warmed: rebuilt from latest()
    const m = await put(again, 3);
    expect(deltas(again, m).length).toBeGreaterThanOrEqual(4);
    expect(sha(await again.reader(m).get('ram'))).toBe(sha(guestStream(3)));
    again.close();
  });

  it('verify reports a flipped byte in a base (and every delta built on it) and in a delta, by checkpoint', async () => {
    const store = Store.open(dir, { compression });
    const ms: Manifest[] = [];
    for (let seq = 1; seq <= 3; seq++) ms.push(await put(store, seq));
    const before = new Set(ms[1]!.parts[0]!.chunks);
    const { hash: delta, base } = deltas(store, ms[2]!).find((d) => !before.has(d.hash))!; // new in checkpoint 3
    // With compression the flip lands in the deflated block holding the chunk: the whole block fails.
    flipStoredByte(store, base, compression === 'none' ? 1000 : 10);
    const reopened = Store.open(dir, { compression });
    const problems = verifyStore(reopened).problems;
    const named = new Set(problems.map((p) => p.chunk));
    expect(named.has(base)).toBe(true);
    expect(named.has(delta)).toBe(true);
    expect(problems.find((p) => p.chunk === delta)!.seq).toBe(3);
    expect(problems.find((p) => p.chunk === delta)!.problem).toMatch(
      new RegExp(`${delta} is a delta whose base cannot be read: .*${base}.* is corrupt`),
    );
    expect(problems.some((p) => p.seq === 1)).toBe(true); // the base belongs to checkpoint 1's page list
    await expect(reopened.reader(ms[2]!).get('ram')).rejects.toThrow(/corrupt/);
    reopened.close();
  });

  it('verify reports a flipped byte inside a delta', async () => {
    const store = Store.open(dir, { compression: 'none' });
    const ms: Manifest[] = [];
    for (let seq = 1; seq <= 2; seq++) ms.push(await put(store, seq));
    const { hash: delta } = deltas(store, ms[1]!)[0]!;
    flipStoredByte(store, delta, 5); // a changed block's byte, not the bitmap
    const reopened = Store.open(dir);
    const problems = verifyStore(reopened).problems;
    expect(problems.map((p) => [p.seq, p.chunk])).toEqual([[2, delta]]);
    reopened.close();
  });

  it('gc keeping only the newest checkpoint keeps the bases its deltas need, in older packs', async () => {
    const store = Store.open(dir, { compression });
    const ms: Manifest[] = [];
    for (let seq = 1; seq <= 5; seq++) ms.push(await put(store, seq));
    const last = ms[4]!;
    const needed = deltas(store, last).map((d) => d.base);
    expect(needed.length).toBeGreaterThan(0);
    // Some bases are pages only older checkpoints list (the page changed since): without the base rule gc drops them.
    const lastChunks = new Set(last.parts[0]!.chunks);
    expect(needed.some((b) => !lastChunks.has(b))).toBe(true);
    const report = gcStore(store, 1);
    expect(report.removed).toEqual([1, 2, 3, 4]);
    expect(report.chunksDropped).toBeGreaterThan(0);
    for (const b of needed) expect(store.locate(b)).toBeDefined();
    expect(verifyStore(store).problems).toEqual([]);
    expect(sha(await store.reader(store.latest()!).get('ram'))).toBe(sha(guestStream(5)));
    store.close();
  });
});

describe('older stores', () => {
  it('a store written by schema-3 code (JSON pack indexes, one-level chunk list) reads, verifies, grows and collects', async () => {
    // test/fixtures/store-v3: two checkpoints of guestStream(seq, 16) + a 3-chunk disk part, written at commit 5a406ad.
    cpSync(fixturePath('store-v3'), dir, { recursive: true });
    const store = Store.open(dir, { compression: 'none' });
    const old = store.list();
    expect(old.map((m) => [m.seq, m.schemaVersion])).toEqual([
      [1, 3],
      [2, 3],
    ]);
    expect(storeStats(store).checkpoints.map((r) => r.newDeltas)).toEqual([null, null]); // not recorded then
    for (const m of old) expect(sha(await store.reader(m).get('ram'))).toBe(sha(guestStream(m.seq, 16)));
    expect(sha(await store.reader(old[1]!).get('disk'))).toBe(sha(keystream('disk:0', 3 * 4096 + 5)));
    expect(verifyStore(store).problems).toEqual([]);
    // A new checkpoint (schema 4, binary index) builds deltas on the schema-3 checkpoint's pages.
    const w = store.begin(3);
    await w.put('ram', guestStream(3, 16), { chunking: 'qemu-pages' });
    const m3 = w.commit();
    expect(deltas(store, m3).length).toBeGreaterThan(0);
    expect(gcStore(store, 1).removed).toEqual([1, 2]);
    expect(verifyStore(store).problems).toEqual([]);
    const reopened = Store.open(dir);
    expect(reopened.list().map((m) => [m.seq, m.schemaVersion])).toEqual([[3, 4]]);
    expect(sha(await reopened.reader(reopened.latest()!).get('ram'))).toBe(sha(guestStream(3, 16)));
    reopened.close();
    store.close();
  });
});
