// A part written into a file at its offsets (part-into.ts), as a RAM image restore writes QEMU's memfd: byte for byte
// the part on both ways (worker threads writing straight into the file; the windowed way a warm cache takes), zero
// pages left as holes only in a file that holds no data (negative control: a file with data gets its zero pages
// written), a corrupt stored block refused with nothing of it written (negative control), and a manifest whose chunks
// do not add up to its size refused before anything is written.
import { closeSync, fstatSync, ftruncateSync, mkdtempSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IntegrityError } from '../../../harness/core/errors.js';
import type { Manifest } from '../../../harness/store/manifest.js';
import { type IntoCounts, partInto } from '../../../harness/store/read/part-into.js';
import { ZERO_PAGE_SHA256 } from '../../../harness/store/sha256.js';
import { ReadPool } from '../../../harness/store/read/read-pool.js';
import { type Compression, Store } from '../../../harness/store/store.js';
import { flipStoredByte, packsOf } from '../../helpers/store.js';

const PAGE = 4096;

/** `n` pages: every third all zeros, every seventh a copy of one common page, the rest distinct (a counter in each). */
function image(n: number): Buffer {
  const out = Buffer.alloc(n * PAGE);
  for (let i = 0; i < n; i++) {
    if (i % 3 === 0) continue;
    const page = out.subarray(i * PAGE, (i + 1) * PAGE);
    if (i % 7 === 0) page.fill(0x5a);
    else {
      page.fill(i % 251);
      page.writeUInt32LE(i, 8);
    }
  }
  return out;
}

let dir: string;
const pools = [new ReadPool(0), new ReadPool(2)];
beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'soak-part-into-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A store in `name` holding `data` as part "ram" (one checkpoint). */
async function stored(name: string, data: Buffer, compression?: Compression): Promise<{ s: Store; m: Manifest }> {
  const s = Store.open(path.join(dir, name), compression === undefined ? {} : { compression });
  const w = s.begin(1);
  await w.put('ram', data);
  return { s, m: w.commit() };
}

/** A file of `bytes`: sparse (holds no data), or filled with `fill`. */
function target(name: string, bytes: number, fill?: number): { file: string; fd: number } {
  const file = path.join(dir, name);
  const fd = openSync(file, 'w+');
  if (fill === undefined) ftruncateSync(fd, bytes);
  else writeSync(fd, Buffer.alloc(bytes, fill));
  return { file, fd };
}

describe('a part written at its offsets', () => {
  const data = image(900);
  const zeros = Math.ceil(900 / 3);

  it.each(pools.map((p) => [p.threads, p] as const))(
    'is the part byte for byte, zero pages left as holes in a file that holds no data (%i threads)',
    async (threads, pool) => {
      const { s, m } = await stored(`plain-${threads}`, data);
      const { file, fd } = target(`plain-${threads}.img`, data.length);
      expect(fstatSync(fd).blocks).toBe(0);
      const counts: IntoCounts = { chunks: 0, hashed: 0, holes: 0 };
      expect(await partInto(packsOf(s), pool, m.parts[0]!, fd, counts)).toBe(data.length);
      const allocated = fstatSync(fd).blocks * 512;
      closeSync(fd);
      expect(readFileSync(file).equals(data)).toBe(true);
      expect(counts).toMatchObject({ chunks: 900, holes: zeros });
      expect(counts.hashed).toBe(new Set(m.parts[0]!.chunks.filter((h) => h !== ZERO_PAGE_SHA256)).size); // each once
      expect(allocated).toBeLessThan(data.length - zeros * PAGE + 64 * 1024); // the zero pages were never written
      s.close();
    },
  );

  it('negative control: into a file that holds data, zero pages are written too', async () => {
    const { s, m } = await stored('filled', data);
    const { file, fd } = target('filled.img', data.length, 0xff);
    const counts: IntoCounts = { chunks: 0, hashed: 0, holes: 0 };
    await partInto(packsOf(s), pools[1]!, m.parts[0]!, fd, counts);
    closeSync(fd);
    expect(counts.holes).toBe(0);
    expect(readFileSync(file).equals(data)).toBe(true); // no 0xff page left where the part has zeros
    s.close();
  });

  it('the windowed way (a warm cache of checked chunks) writes the same bytes', async () => {
    const { s, m } = await stored('cached', data);
    const { file, fd } = target('cached.img', data.length);
    const held = new Map([[m.parts[0]!.chunks[1]!, data.subarray(PAGE, 2 * PAGE)]]);
    const counts: IntoCounts = { chunks: 0, hashed: 0, holes: 0 };
    await partInto(packsOf(s), pools[1]!, m.parts[0]!, fd, counts, { get: (h) => held.get(h) });
    closeSync(fd);
    expect(readFileSync(file).equals(data)).toBe(true);
    expect(counts).toMatchObject({ chunks: 900, holes: zeros, cached: 1 });
    s.close();
  });

  // LZ4: the flipped block no longer decodes; stored as is: it reads fine and holds other bytes than its name says
  it.each([
    ['lz4', 0],
    ['lz4', 2],
    ['none', 2],
  ] as const)(
    'negative control: a corrupt stored block (%s) is refused naming its pack, none of its pages written (%i threads)',
    async (compression, threads) => {
      const pool = pools.find((p) => p.threads === threads)!;
      const { s, m } = await stored(`corrupt-${compression}-${threads}`, data, compression);
      const victim = m.parts[0]!.chunks[1]!;
      expect(victim).not.toBe(ZERO_PAGE_SHA256);
      flipStoredByte(s, victim, 40);
      const { file, fd } = target(`corrupt-${compression}-${threads}.img`, data.length);
      const at = s.locate(victim)!;
      const err = await partInto(packsOf(s), pool, m.parts[0]!, fd).catch((e: unknown) => e);
      closeSync(fd);
      expect(err).toBeInstanceOf(IntegrityError);
      expect(String(err)).toContain(at.pack);
      // every page stored in the damaged block is still a hole (reads as zeros)
      const got = readFileSync(file);
      const inBlock = m.parts[0]!.chunks.flatMap((h, i) => (s.locate(h)?.offset === at.offset ? [i] : []));
      expect(inBlock).toContain(1);
      for (const i of inBlock) expect(got.subarray(i * PAGE, (i + 1) * PAGE).every((b) => b === 0)).toBe(true);
      s.close();
    },
  );

  it('a manifest whose chunks do not add up to its size is refused before anything is written', async () => {
    const { s, m } = await stored('short', data);
    const { fd } = target('short.img', data.length);
    const part = { ...m.parts[0]!, size: data.length + PAGE };
    await expect(partInto(packsOf(s), pools[1]!, part, fd)).rejects.toThrow(/add up to \d+ bytes, its manifest says/);
    expect(fstatSync(fd).blocks).toBe(0);
    closeSync(fd);
    s.close();
  });
});
