// A part's chunk list resolved once per read (part-plan.ts): each distinct chunk numbered once with its first and last
// use, located once, a delta's base numbered after the list's own, a chunk no index lists (or a delta on a missing
// base) marked for PackReader.readChunk, and windows that end where the next chunk lies in another stored block.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PackReader } from '../../../harness/store/read/pack-reader.js';
import { PartPlan, SLOW } from '../../../harness/store/read/part-plan.js';
import { Store } from '../../../harness/store/store.js';
import { guestStream } from '../../fixtures/guest-stream.mjs';
import { textPages } from '../../fixtures/text-pages.mjs';
import { sha } from '../../helpers/bytes.js';

const PAGE = 4096;
let dir: string;
beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'soak-part-plan-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const packsOf = (s: Store): PackReader => (s as unknown as { internals: { packs: PackReader } }).internals.packs;

describe('PartPlan', () => {
  it('numbers each distinct chunk once, with its first and last use and its place', async () => {
    const s = Store.open(path.join(dir, 'plain'));
    const w = s.begin(1);
    const text = textPages(1, 40);
    const common = textPages(9, 1);
    // 40 distinct pages with one common page after every tenth
    const pages = Array.from({ length: 40 }, (_, i) => text.subarray(i * PAGE, (i + 1) * PAGE));
    await w.put('ram', Buffer.concat(pages.flatMap((p, i) => (i % 10 === 9 ? [p, common] : [p]))));
    const m = w.commit();
    const list = m.parts[0]!.chunks;
    const missing = sha(Buffer.from('no index lists this'));
    const plan = new PartPlan(packsOf(s), [...list, missing, list[0]!]);
    expect(list.length).toBe(44);
    expect(plan.hashes.length).toBe(42); // 40 pages, the common one, the missing one
    const c = plan.ids[10]!;
    expect(plan.hashes[c]).toBe(sha(common));
    expect([plan.first[c], plan.last[c]]).toEqual([10, 43]);
    expect([plan.first[0], plan.last[0]]).toEqual([0, 45]);
    expect([...plan.ids.subarray(0, 3), plan.ids[45]]).toEqual([0, 1, 2, 0]);
    const gone = plan.ids[44]!;
    expect(plan.pack[gone]).toBe(SLOW);
    for (let d = 0; d < plan.hashes.length; d++) {
      if (d === gone) continue;
      const loc = s.locate(plan.hashes[d]!)!;
      expect(plan.packFiles[plan.pack[d]!]).toBe(path.join(dir, 'plain', 'packs', `${loc.pack}.pack`));
      expect([plan.offset[d], plan.length[d], plan.codec[d], plan.inner[d], plan.raw[d], plan.base[d]]).toEqual([
        loc.offset,
        loc.length,
        loc.codec,
        loc.inner,
        loc.rawLength,
        -1,
      ]);
    }
    // windows of at least 8 positions, each extended while the next chunk is in the same block as its last
    const ends = [...plan.windows(8)];
    expect(ends.at(-1)).toBe(46);
    let a = 0;
    for (const b of ends) {
      expect(b - a >= 8 || b === 46).toBe(true);
      expect(b - a).toBeLessThanOrEqual(16);
      if (b < 46 && b - a < 16) expect(plan.sameBlock(plan.ids[b]!, plan.ids[b - 1]!)).toBe(false);
      a = b;
    }
    s.close();
  });

  it("numbers a delta's base after the list's own chunks", async () => {
    const s = Store.open(path.join(dir, 'deltas'));
    for (const seq of [1, 2]) {
      const w = s.begin(seq);
      await w.put('ram', guestStream(seq, 64), { chunking: 'qemu-pages' });
      w.commit();
    }
    const m = s.latest()!;
    const deltas = m.parts[0]!.chunks.filter((h) => s.locate(h)?.base !== undefined);
    expect(deltas.length).toBeGreaterThan(0);
    // each listed many times (fewer distinct chunks than positions), so the bases grow the per-chunk arrays
    const list = Array.from({ length: 40 }, () => deltas).flat();
    const plan = new PartPlan(packsOf(s), list);
    expect(plan.ids.length).toBe(40 * deltas.length);
    expect(plan.last[plan.ids[0]!]).toBe(39 * deltas.length);
    expect(plan.hashes.length).toBeGreaterThan(deltas.length);
    for (let i = 0; i < deltas.length; i++) {
      const d = plan.ids[i]!;
      const b = plan.base[d]!;
      expect(plan.hashes[b]).toBe(s.locate(deltas[i]!)!.base);
      if (b >= deltas.length) expect([plan.first[b], plan.last[b], plan.base[b]]).toEqual([-1, -1, -1]);
      expect(plan.pack[b]).not.toBe(SLOW);
    }
    s.close();
  });
});
