// The `qemu-pages` chunking in the store: a migration stream is stored as meta + map + one chunk per page and read back
// byte-identical, whatever its push sizes; a stream the splitter cannot parse (garbage, truncated) still roundtrips;
// pages dedup across checkpoints where fixed 4 KiB chunks of the raw stream do not.
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { IntegrityError } from '../../../harness/core/errors.js';
import { Store } from '../../../harness/store/store.js';
import type { Chunking } from '../../../harness/store/types.js';
import { layoutProblems, storeStats, verifyStore } from '../../../harness/store/check/verify.js';
import { fixturePath } from '../../helpers/paths.js';
import { matching, withFields } from '../../helpers/match.js';
import { slices, streamOf } from '../../helpers/stream.js';

const real = readFileSync(fixturePath('qemu-migration', 'microvm-7.2-spliced.bin'));

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'soak-pages-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const sha = (b: Uint8Array): string => createHash('sha256').update(b).digest('hex');
const pieces = (data: Buffer, size: number): AsyncIterable<Uint8Array> => streamOf(slices(data, size));
async function collect(it: AsyncIterable<Buffer>): Promise<Buffer> {
  const out: Buffer[] = [];
  for await (const b of it) out.push(b);
  return Buffer.concat(out);
}

async function roundtrip(data: Buffer, pieceSize: number): Promise<{ store: Store; seq: number }> {
  const store = Store.open(dir);
  const w = store.begin(1);
  await w.put('ram', pieces(data, pieceSize), { chunking: 'qemu-pages' });
  const m = w.commit();
  const r = store.reader(m);
  expect(sha(await r.get('ram'))).toBe(sha(data));
  expect(sha(await collect(r.stream('ram')))).toBe(sha(data));
  return { store, seq: m.seq };
}

describe('qemu-pages chunking', () => {
  it('stores a real QEMU 7.2 stream as meta + map + pages and rebuilds it byte-identical for any push size', async () => {
    for (const size of [1 << 20, 4099, 777]) {
      const { store, seq } = await roundtrip(real, size);
      const part = store.list().find((m) => m.seq === seq)!.parts[0]!;
      expect(part.layout).toMatchObject({ kind: 'qemu-pages', pages: 5, fallback: null });
      expect(part.layout!.metaBytes + 5 * 4096).toBe(real.length);
      expect(part.size).toBe(real.length);
      expect(part.chunks).toHaveLength(part.layout!.metaChunks + part.layout!.mapChunks + 5);
      // Accounting: logical = the stream's size; the guest-RAM view counts the RAM the stream declares instead.
      const row = storeStats(store).checkpoints.find((r) => r.seq === seq)!;
      expect(row.logicalBytes).toBe(real.length);
      expect(part.layout!.ramBytes).toBeGreaterThan(256 * 2 ** 20);
      expect(row.guestLogicalBytes).toBe(part.layout!.ramBytes);
      store.close();
    }
  });

  it('roundtrips streams it cannot parse: garbage, truncated, bad magic (fallback recorded)', async () => {
    const garbage = Buffer.from(Array.from({ length: 50_000 }, (_, i) => (i * 2654435761) >>> 24));
    const truncated = real.subarray(0, 20_000);
    const badMagic = Buffer.concat([Buffer.from('XXXX'), real.subarray(4)]);
    for (const data of [garbage, truncated, badMagic, Buffer.alloc(0)]) {
      const { store, seq } = await roundtrip(data, 333);
      const layout = store.list().find((m) => m.seq === seq)!.parts[0]!.layout!;
      if (data.length > 0) expect(layout.fallback?.reason, `${data.length} bytes`).toBeTruthy();
      store.close();
    }
  });

  it('a page repeated at another place in the next stream is stored once (fixed chunks of the raw stream cannot)', async () => {
    // The same stream shifted by 8 bytes inserted in its head (the configuration section, before the ram START header,
    // which the splitter searches for): pages keep their hashes, 4 KiB windows of the raw bytes do not.
    const shifted = Buffer.concat([real.subarray(0, 20), Buffer.alloc(8, 0x2a), real.subarray(20)]);
    const stored = async (chunking: Chunking): Promise<{ newChunks: number; pages: number; newPages: number }> => {
      const store = Store.open(path.join(dir, chunking), { compression: 'none' });
      const w1 = store.begin(1);
      await w1.put('ram', real, { chunking });
      const first = new Set(w1.commit().parts[0]!.chunks);
      const w2 = store.begin(2);
      await w2.put('ram', shifted, { chunking });
      const m = w2.commit();
      store.close();
      const l = m.parts[0]!.layout;
      const pages = l ? m.parts[0]!.chunks.slice(l.metaChunks + l.mapChunks) : [];
      return { newChunks: m.newChunks, pages: pages.length, newPages: pages.filter((h) => !first.has(h)).length };
    };
    const page = await stored('qemu-pages');
    const fixed = await stored('fixed');
    // New: the meta chunk around the inserted bytes and the map chunk (its first entry grew by 8); no page.
    expect([page.pages, page.newPages]).toEqual([5, 0]);
    expect(page.newChunks).toBeLessThanOrEqual(3);
    expect(fixed.newChunks).toBeGreaterThanOrEqual(9); // every 4 KiB window after byte 20 moved
  });

  it('a stream of 300,000 pages (a 1.2 GB guest) is stored: no call-argument limit on the chunk list', async () => {
    // Spreading 300k page hashes into one push() overflows the stack; this stream has them, all the same page.
    const pages = 300_000;
    const be64 = (n: number, flags = 0): Buffer => {
      const b = Buffer.alloc(8);
      b.writeBigUInt64BE(BigInt(n) | BigInt(flags));
      return b;
    };
    const str = (t: string): Buffer => Buffer.concat([Buffer.from([t.length]), Buffer.from(t, 'latin1')]);
    const be32 = (n: number): Buffer => {
      const b = Buffer.alloc(4);
      b.writeUInt32BE(n);
      return b;
    };
    const page = Buffer.alloc(4096, 0x5a);
    function* records(): Generator<Uint8Array> {
      yield Buffer.concat([Buffer.from('QEVM'), be32(3), Buffer.from([0x01]), be32(2), str('ram'), be32(0), be32(4)]);
      yield Buffer.concat([
        be64(pages * 4096, 0x04),
        str('pc.ram'),
        be64(pages * 4096),
        be64(0, 0x10),
        Buffer.from([0x7e]),
        be32(2),
      ]);
      yield Buffer.concat([Buffer.from([0x03]), be32(2), be64(0, 0x08), str('pc.ram'), page]);
      const batch = Buffer.concat(Array.from({ length: 256 }, () => Buffer.concat([Buffer.alloc(8), page])));
      for (let first = 1; first < pages; first += 256) {
        const n = Math.min(256, pages - first);
        for (let i = 0; i < n; i++) be64((first + i) * 4096, 0x08 | 0x20).copy(batch, i * 4104);
        yield batch.subarray(0, n * 4104);
      }
      yield Buffer.concat([be64(0, 0x10), Buffer.from([0x7e]), be32(2), Buffer.from([0x00])]);
    }
    const store = Store.open(dir);
    const w = store.begin(1);
    await w.put('ram', streamOf(records()), { chunking: 'qemu-pages' });
    const m = w.commit();
    const part = m.parts[0]!;
    expect(part.layout).toMatchObject({ pages, zeroPages: 0, fallback: null, ramBytes: pages * 4096 });
    expect(part.chunks).toHaveLength(part.layout!.metaChunks + part.layout!.mapChunks + pages);
    expect(m.newChunks).toBeLessThan(part.layout!.metaChunks + part.layout!.mapChunks + 2); // one distinct page
    store.close();
  });

  it('a page map that disagrees with its layout fails loudly on read and in verify (negative control)', async () => {
    const { store, seq } = await roundtrip(real, 1 << 20);
    const m = store.list().find((x) => x.seq === seq)!;
    const p = m.parts[0]!;
    // A map that lists fewer pages than the layout: what a wrong ingest would write.
    const bad = { ...p, layout: { ...p.layout!, pages: p.layout!.pages + 1 } };
    const r = store.reader({ ...m, parts: [bad] });
    await expect(r.get('ram')).rejects.toBeInstanceOf(IntegrityError);
    expect(verifyStore(store).problems).toEqual([]);
    expect(layoutProblems(store, { ...m, parts: [bad] })).toEqual([
      withFields({ part: 'ram', problem: matching(/page map lists 5 pages, the layout 6/) }),
    ]);
    store.close();
  });
});
