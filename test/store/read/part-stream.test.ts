// The fast read path (part-stream.ts, chunk-fetch.ts, read-pool.ts): a part read back on worker threads is byte for
// byte the part, each distinct chunk is hashed once however often it repeats, and every check still bites: a chunk
// whose block inflates fine off-thread but holds other bytes (negative control), a bad hash reported by a worker, a
// damaged delta (negative control). A read hands its slot buffers to the next only when it ran to its end. It does
// not hash the whole part again (a verified page is hashed once per read): `soak store verify` checks part digests.
import { closeSync, mkdtempSync, openSync, readSync, rmSync, writeSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { deflateRawSync } from 'node:zlib';
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IntegrityError } from '../../../harness/core/errors.js';
import type { Manifest } from '../../../harness/store/manifest.js';
import { partStream, type ReadCounts, spareSlotSets } from '../../../harness/store/read/part-stream.js';
import { ReadPool } from '../../../harness/store/read/read-pool.js';
import { Store } from '../../../harness/store/store.js';
import { guestStream } from '../../fixtures/guest-stream.mjs';
import { packsOf } from '../../helpers/store.js';

const PAGE = 4096;
const sha = (b: Uint8Array): string => createHash('sha256').update(b).digest('hex');

/** 16 distinct pages filled with `fill` (a counter in each), then `repeats` copies of one common page. */
function pages(fill: number, count: number): Buffer {
  const out = Buffer.alloc(count * PAGE, fill);
  for (let i = 0; i < count; i++) out.writeUInt32LE(i, i * PAGE);
  return out;
}

let dir: string;
const pools = [new ReadPool(0), new ReadPool(2)];
beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'soak-part-stream-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function readAll(s: Store, m: Manifest, pool: ReadPool, counts: ReadCounts): Promise<Buffer> {
  const pieces: Buffer[] = [];
  for await (const piece of partStream(packsOf(s), pool, m.parts[0]!, false, counts)) pieces.push(Buffer.from(piece));
  return Buffer.concat(pieces);
}

describe('fast read path', () => {
  it.each(pools.map((p) => [p.threads, p] as const))(
    'reads a deflated part back exactly, hashing each distinct chunk once (%i threads)',
    async (threads, pool) => {
      const common = Buffer.alloc(PAGE, 7);
      const body = pages(1, 600);
      // the common page 300 times, spread over the whole part (kept between windows, never hashed again)
      const data = Buffer.concat([
        ...Array.from({ length: 300 }, (_, i) => [body.subarray(2 * i * PAGE, (2 * i + 2) * PAGE), common]).flat(),
      ]);
      const s = Store.open(path.join(dir, `round-${threads}`), { compression: 'deflate' });
      const w = s.begin(1);
      await w.put('ram', data);
      const m = w.commit();
      const counts: ReadCounts = { chunks: 0, hashed: 0 };
      expect(sha(await readAll(s, m, pool, counts))).toBe(sha(data));
      expect(counts.chunks).toBe(900);
      expect(counts.hashed).toBe(601); // 600 distinct pages + the common one, once
      const reader = s.reader(m);
      expect(sha(await reader.get('ram'))).toBe(sha(data));
      s.close();
    },
  );

  it('negative control: a block that inflates fine off-thread but holds other pages is caught, naming pack and chunk', async () => {
    const s = Store.open(path.join(dir, 'swapped'), { compression: 'deflate' });
    const w = s.begin(1);
    // two blocks of 16 distinct pages each, alike in shape: their deflated forms have the same length
    await w.put('ram', Buffer.concat([pages(1, 16), pages(2, 16)]));
    const m = w.commit();
    const chunks = m.parts[0]!.chunks;
    const a = s.locate(chunks[0]!)!;
    const b = s.locate(chunks[16]!)!;
    expect(a.codec).toBe(2);
    expect([b.codec, b.length, b.offset === a.offset]).toEqual([2, a.length, false]);
    // copy block b over block a: a valid deflate stream, the wrong pages
    const file = path.join(dir, 'swapped', 'packs', `${a.pack}.pack`);
    const fd = openSync(file, 'r+');
    const bytes = Buffer.alloc(b.length);
    readSync(fd, bytes, 0, b.length, b.offset);
    writeSync(fd, bytes, 0, b.length, a.offset);
    closeSync(fd);
    s.close();
    const fresh = Store.open(path.join(dir, 'swapped'));
    const got = readAll(fresh, m, pools[1]!, { chunks: 0, hashed: 0 });
    await expect(got).rejects.toBeInstanceOf(IntegrityError);
    await expect(got).rejects.toThrow(
      new RegExp(`chunk ${chunks[0]} in pack ${a.pack} at offset ${a.offset} is corrupt`),
    );
    fresh.close();
  });

  it.each(pools.map((p) => [p.threads, p] as const))(
    'a block job reports a chunk whose bytes do not hash to its name, and an unreadable block (%i threads)',
    async (threads, pool) => {
      const plain = pages(3, 4);
      const file = path.join(dir, `block-${threads}.bin`);
      const z = deflateRawSync(plain);
      const fd = openSync(file, 'w');
      writeSync(fd, z);
      closeSync(fd);
      const good = [0, 1, 2, 3].map((i) => sha(plain.subarray(i * PAGE, (i + 1) * PAGE)));
      const wrong = good.map((h, i) => (i === 2 ? sha(Buffer.from('not this page')) : h));
      const slices = [0, 1, 2, 3].flatMap((i) => [i * PAGE, PAGE]);
      // block 0: one chunk is not what its name says; block 1: past the end of the read (unreadable); block 2: good
      const meta = Int32Array.from([
        ...[0, 0, z.length, 2, plain.length, 4],
        ...[0, 0, z.length + 10, 2, plain.length, 4],
        ...[0, 0, z.length, 2, plain.length, 4],
      ]);
      const job = {
        reads: [[file, 0, z.length]] as Array<[string, number, number]>,
        meta,
        slices: Int32Array.from([...slices, ...slices, ...slices]),
        hashes: [...wrong, ...good, ...good].join(''),
      };
      // blocks of their own, and blocks in a shared output buffer (the fast read's slots)
      const own = await pool.run(job);
      expect(own.bad).toEqual([0, 2, 1, -1]);
      expect(own.hashed).toBe(8);
      expect([...own.places]).toEqual([-2, plain.length, -1, 0, -2, plain.length]);
      expect(own.own.map((b) => sha(b))).toEqual([sha(plain), sha(plain)]);
      const out = new SharedArrayBuffer(2 * plain.length);
      const shared = await pool.run({ ...job, out });
      expect(shared.bad).toEqual([0, 2, 1, -1]);
      expect([...shared.places]).toEqual([0, plain.length, -1, 0, plain.length, plain.length]);
      expect(shared.own).toEqual([]);
      expect(sha(new Uint8Array(out))).toBe(sha(Buffer.concat([plain, plain])));
    },
  );

  it.each(pools.map((p) => [p.threads, p] as const))(
    'rebuilds deltas from their bases and checks them; a damaged delta is caught, naming pack and chunk (%i threads)',
    async (threads, pool) => {
      const root = path.join(dir, `deltas-${threads}`);
      const s = Store.open(root, { compression: 'none' });
      for (const seq of [1, 2]) {
        const w = s.begin(seq);
        await w.put('ram', guestStream(seq, 600), { chunking: 'qemu-pages' });
        w.commit();
      }
      const m = s.latest()!;
      const delta = m.parts[0]!.chunks.find((h) => s.locate(h)?.base !== undefined)!;
      const loc = s.locate(delta)!;
      expect(loc.codec).toBe(0);
      expect(sha(await readAll(s, m, pool, { chunks: 0, hashed: 0 }))).toBe(sha(guestStream(2, 600)));
      s.close();
      // negative control: one byte of the delta's stored form changed (the delta applies, its result is not the chunk)
      const fd = openSync(path.join(root, 'packs', `${loc.pack}.pack`), 'r+');
      const last = Buffer.alloc(1);
      readSync(fd, last, 0, 1, loc.offset + loc.length - 1);
      last[0]! ^= 0xff;
      writeSync(fd, last, 0, 1, loc.offset + loc.length - 1);
      closeSync(fd);
      const fresh = Store.open(root);
      const got = readAll(fresh, m, pool, { chunks: 0, hashed: 0 });
      await expect(got).rejects.toThrow(
        new RegExp(`chunk ${delta} in pack ${loc.pack} at offset ${loc.offset} is corrupt`),
      );
      fresh.close();
    },
  );

  it('reads that follow one another in a process share slot buffers safely, also after a read left early', async () => {
    const s = Store.open(path.join(dir, 'slots'));
    const w = s.begin(1);
    const parts = [pages(6, 1500), pages(7, 1300)]; // several windows each
    await w.put('a', parts[0]!);
    await w.put('b', parts[1]!);
    const m = w.commit();
    const pool = pools[1]!;
    const read = async (i: number): Promise<string> => {
      const got: Buffer[] = [];
      for await (const piece of partStream(packsOf(s), pool, m.parts[i]!, false)) got.push(Buffer.from(piece));
      return sha(Buffer.concat(got));
    };
    for (let round = 0; round < 2; round++) {
      expect(await read(0)).toBe(sha(parts[0]!));
      expect(spareSlotSets()).toBe(1);
      // left after its first piece, windows still in flight: its slots must not go to the next read
      for await (const piece of partStream(packsOf(s), pool, m.parts[1]!, false)) {
        expect(piece.length).toBe(1 << 20);
        break;
      }
      expect(spareSlotSets()).toBe(0);
      expect(await read(1)).toBe(sha(parts[1]!));
      expect(spareSlotSets()).toBe(1);
    }
    s.close();
  });

  it('a big part on the pool reads back right in reused pieces, each distinct chunk hashed once, no whole-part hash', async () => {
    const s = Store.open(path.join(dir, 'big'), { compression: 'deflate' });
    const w = s.begin(1);
    const data = pages(5, (9 << 20) / PAGE); // 9 MiB: over POOL_FROM, so on the worker threads
    await w.put('ram', data);
    const m = w.commit();
    const r = s.reader(m);
    const whole = createHash('sha256');
    let prev: Buffer | undefined; // a consumer done with a piece only when it has the next (a socket write in flight)
    for await (const piece of r.stream('ram', { reuse: true })) {
      if (prev !== undefined) whole.update(prev);
      prev = piece;
    }
    whole.update(prev!);
    expect(whole.digest('hex')).toBe(sha(data));
    // pages(): every page distinct but filled alike; one SHA-256 per distinct chunk, none for the part as a whole
    expect(r.counts).toEqual({ chunks: data.length / PAGE, hashed: new Set(m.parts[0]!.chunks).size, cached: 0 });
    s.close();
  });
});
