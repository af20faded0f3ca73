// ChunkFetcher's batches in flight together: a chunk one batch fetches for its own list, asked again by a batch started
// ahead as a delta's base, must reach `views` from the first batch (the second fetches its own copy for the delta).
// Before chunk-fetch.ts kept bases' marks apart, the second batch took the chunk over and the first batch's caller got
// nothing ("chunk ... was not fetched": restores of a RAM-only micro-VM failed 17 in 20).
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChunkFetcher } from '../../../harness/store/read/chunk-fetch.js';
import { PartPlan } from '../../../harness/store/read/part-plan.js';
import { ReadPool } from '../../../harness/store/read/read-pool.js';
import { Store } from '../../../harness/store/store.js';
import { migrationStream } from '../../fixtures/guest-stream.mjs';
import { packsOf } from '../../helpers/store.js';

const sha = (b: Uint8Array): string => createHash('sha256').update(b).digest('hex');

let dir: string;
const pools = [new ReadPool(0), new ReadPool(2)];
beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'soak-chunk-fetch-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('ChunkFetcher with two batches in flight', () => {
  it.each(pools.map((p) => [p.threads, p] as const))(
    "hands a chunk to the batch that asked for it even when a later batch fetches it as a delta's base (%i threads)",
    async (_threads, pool) => {
      const s = Store.open(path.join(dir, `ahead-${pool.threads}`), { compression: 'none' });
      // checkpoint 1: pages 0 and 1 hold page A; checkpoint 2: page 0 still A, page 1 A with 8 bytes changed (a delta
      // against A, the page its address held before): A is in checkpoint 2's own list and a delta's base
      const a = randomBytes(4096);
      const changed = Buffer.from(a);
      changed.fill(0x5a, 100, 108);
      const others = Array.from({ length: 30 }, () => randomBytes(4096));
      for (const [seq, pages] of [
        [1, [a, a, ...others]],
        [2, [a, changed, ...others]],
      ] as const) {
        const w = s.begin(seq);
        await w.put('ram', migrationStream([...pages]), { chunking: 'qemu-pages' });
        w.commit();
      }
      const list = s.latest()!.parts[0]!.chunks;
      const plan = new PartPlan(packsOf(s), list);
      // a delta whose base is in the part's own list (a base it only refers to would never be asked for by itself)
      const d = plan.hashes.findIndex((_, i) => plan.base[i]! >= 0 && plan.first[plan.base[i]!]! >= 0);
      expect(d).toBeGreaterThanOrEqual(0);
      const b = plan.base[d]!;
      const fetcher = new ChunkFetcher(packsOf(s), pool, plan);
      // batch 1 asks for the base for its own use; batch 2, started before batch 1 is done, asks for the delta
      const first = fetcher.fetch([b]);
      const second = fetcher.fetch([d]);
      await Promise.all([first, second]);
      expect(fetcher.views[b], 'the base reached views from its own batch').toBeDefined();
      expect(sha(fetcher.views[b]!)).toBe(plan.hashes[b]);
      expect(sha(fetcher.views[d]!)).toBe(plan.hashes[d]);
      s.close();
    },
  );
});
