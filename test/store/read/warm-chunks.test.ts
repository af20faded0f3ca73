// A warm standby's copy of the newest checkpoint (warm-chunks.ts): a read through it is byte for byte the part with
// nothing read or hashed again, a newer checkpoint fetches only the chunks it adds, a chunk corrupt on disk is never
// warmed (negative control: the read that follows still meets it), a part assembled whole is handed out only for the
// part digest it was made for (negative control: another checkpoint's part is not served from it), and clear() is
// final even for a warm-up under way.
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IntegrityError } from '../../../harness/core/errors.js';
import type { Manifest } from '../../../harness/store/manifest.js';
import { WarmChunks, warmChunkList } from '../../../harness/store/read/warm-chunks.js';
import type { CheckpointReader } from '../../../harness/store/read/reader.js';
import { Store } from '../../../harness/store/store.js';
import { guestStream } from '../../fixtures/guest-stream.mjs';
import { flipStoredByte } from '../../helpers/store.js';

const sha = (b: Uint8Array): string => createHash('sha256').update(b).digest('hex');
const distinct = (m: Manifest): Set<string> => new Set(m.parts.flatMap((p) => p.chunks));

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'soak-warm-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Checkpoints 1..n of a 600-page guest stream (page-split, deltas on), as a micro-VM's RAM part is stored. */
async function guestStore(name: string, n: number): Promise<{ s: Store; ms: Manifest[] }> {
  const s = Store.open(path.join(dir, name));
  const ms: Manifest[] = [];
  for (let seq = 1; seq <= n; seq++) {
    const w = s.begin(seq);
    await w.put('ram', guestStream(seq, 600), { chunking: 'qemu-pages' });
    ms.push(w.commit());
  }
  return { s, ms };
}

async function pieces(r: CheckpointReader): Promise<Buffer[]> {
  const out: Buffer[] = [];
  for await (const p of r.stream('ram', { reuse: true })) out.push(Buffer.from(p));
  return out;
}

describe('warm copy of the newest checkpoint', () => {
  it('reads back exactly with nothing read from the store; a newer checkpoint fetches only the chunks it adds', async () => {
    const { s, ms } = await guestStore('round', 2);
    const [m1, m2] = ms as [Manifest, Manifest];
    const warm = new WarmChunks();
    const c1 = await s.warm(m1, warm);
    expect(c1).toMatchObject({ fetched: distinct(m1).size, held: distinct(m1).size });
    const r1 = s.reader(m1, warm);
    expect(sha(Buffer.concat(await pieces(r1)))).toBe(sha(guestStream(1, 600)));
    expect(r1.counts.hashed).toBe(0);
    expect(r1.counts.cached).toBe(distinct(m1).size);
    const added = [...distinct(m2)].filter((h) => !distinct(m1).has(h)).length;
    expect(added).toBeGreaterThan(0);
    expect(added).toBeLessThan(distinct(m2).size / 2);
    const c2 = await s.warm(m2, warm);
    expect(c2).toMatchObject({ fetched: added, held: distinct(m2).size });
    expect(warm.size).toBe(distinct(m2).size); // m1's chunks m2 does not name are dropped
    const r2 = s.reader(m2, warm);
    expect(sha(Buffer.concat(await pieces(r2)))).toBe(sha(guestStream(2, 600)));
    expect(r2.counts.hashed).toBe(0);
    // without the copy the same read hashes every distinct chunk
    const cold = s.reader(m2);
    expect(sha(Buffer.concat(await pieces(cold)))).toBe(sha(guestStream(2, 600)));
    expect(cold.counts.hashed).toBeGreaterThanOrEqual(distinct(m2).size);
    s.close();
  });

  it('negative control: a chunk corrupt on disk is not warmed, and the read after meets it; one warmed before is served checked', async () => {
    const { s, ms } = await guestStore('corrupt', 1);
    const m = ms[0]!;
    const before = new WarmChunks();
    await s.warm(m, before);
    const victim = m.parts[0]!.chunks.at(-1)!;
    flipStoredByte(s, victim, 8);
    s.close();
    const fresh = Store.open(s.dir);
    const warm = new WarmChunks();
    await expect(fresh.warm(m, warm)).rejects.toThrow(IntegrityError);
    expect(warm.size).toBe(0); // nothing kept from a warm-up that failed
    await expect(pieces(fresh.reader(m, warm))).rejects.toThrow(new RegExp(`chunk ${victim} .*corrupt`));
    // the copy taken before the flip holds the bytes that were checked then (memory, not the disk)
    expect(sha(Buffer.concat(await pieces(fresh.reader(m, before))))).toBe(sha(guestStream(1, 600)));
    fresh.close();
  });

  it('a part assembled whole is handed out in one piece, only for the part digest it was made for (negative control)', async () => {
    const { s, ms } = await guestStore('whole', 3);
    const [m1, m2, m3] = ms as [Manifest, Manifest, Manifest];
    const warm = new WarmChunks();
    await s.warm(m1, warm);
    expect(await warm.assemble(s.reader(m1, warm))).toBe(m1.parts[0]!.size);
    const one = await pieces(s.reader(m1, warm));
    expect(one).toHaveLength(1);
    expect(sha(one[0]!)).toBe(sha(guestStream(1, 600)));
    // checkpoint 2 before its own assembly: read from chunks (many pieces), never checkpoint 1's whole
    await s.warm(m2, warm);
    const two = await pieces(s.reader(m2, warm));
    expect(two.length).toBeGreaterThan(1);
    expect(sha(Buffer.concat(two))).toBe(sha(guestStream(2, 600)));
    // two buffers a part: the one handed out for checkpoint 2 is not written while checkpoint 3 is assembled
    await warm.assemble(s.reader(m2, warm));
    const held2 = warm.whole('ram', m2.parts[0]!.sha256)!;
    await s.warm(m3, warm);
    await warm.assemble(s.reader(m3, warm));
    expect(sha(held2)).toBe(sha(guestStream(2, 600)));
    expect(sha(warm.whole('ram', m3.parts[0]!.sha256)!)).toBe(sha(guestStream(3, 600)));
    expect(warm.whole('ram', m2.parts[0]!.sha256)).toBeUndefined();
    s.close();
  });

  it('clear() is final: a warm-up under way when it is called keeps nothing', async () => {
    const { s, ms } = await guestStore('clear', 1);
    const warm = new WarmChunks();
    const going = s.warm(ms[0]!, warm);
    warm.clear();
    await going;
    expect(warm.size).toBe(0);
    expect(warmChunkList(ms[0]!, 0)).toEqual([]); // a part over the byte budget is left in the store
    s.close();
  });
});
