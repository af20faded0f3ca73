// LZ4 blocks (codec 3, the default compression): the decoder matches lz4-napi's encoder and never throws or writes out
// of bounds on damaged input; a store written with LZ4 reads back exactly on 0 and 2 read threads; a store written
// with deflate by the code before LZ4 (test/fixtures/store-deflate) still reads, verifies, grows and collects; and a
// damaged LZ4 block is caught by the chunk hash check (negative controls: a block swapped for another that decodes
// fine, a flipped literal, a damaged size header).
import { closeSync, cpSync, mkdtempSync, openSync, readFileSync, readSync, rmSync, writeSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { compressSync } from 'lz4-napi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IntegrityError } from '../../../harness/core/errors.js';
import { gcStore } from '../../../harness/store/gc.js';
import { lz4Decode, lz4PlainSize } from '../../../harness/store/read/lz4-block.js';
import type { Manifest } from '../../../harness/store/manifest.js';
import { partStream, type ReadCounts } from '../../../harness/store/read/part-stream.js';
import { ReadPool } from '../../../harness/store/read/read-pool.js';
import { Store } from '../../../harness/store/store.js';
import { verifyStore } from '../../../harness/store/check/verify.js';
import { guestStream } from '../../fixtures/guest-stream.mjs';
import { keystream } from '../../fixtures/store-content.mjs';
import { textPages } from '../../fixtures/text-pages.mjs';
import { sha } from '../../helpers/bytes.js';
import { fixturePath } from '../../helpers/paths.js';
import { rng } from '../../helpers/rng.js';
import { packsOf } from '../../helpers/store.js';

const PAGE = 4096;
let dir: string;
const pools = [new ReadPool(0), new ReadPool(2)];
beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'soak-lz4-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function readAll(s: Store, m: Manifest, part: string, pool: ReadPool, counts?: ReadCounts): Promise<Buffer> {
  const p = m.parts.find((x) => x.name === part)!;
  const pieces: Buffer[] = [];
  for await (const piece of partStream(packsOf(s), pool, p, false, counts)) pieces.push(Buffer.from(piece));
  return Buffer.concat(pieces);
}

describe('lz4Decode', () => {
  const samples: Array<[string, Buffer]> = [
    ['text', textPages(1, 16)],
    ['random', keystream('lz4', 3 * PAGE + 17)],
    ['zeros', Buffer.alloc(64 * 1024)],
    ['mixed', Buffer.concat([textPages(2, 4), keystream('m', 5000), Buffer.alloc(300, 9), textPages(3, 2)])],
    ['one byte', Buffer.from([42])],
  ];
  it.each(samples)('decodes what lz4-napi encodes (%s), whole and cut short', (_, plain) => {
    const z = compressSync(plain);
    expect(lz4PlainSize(z)).toBe(plain.length);
    const out = new Uint8Array(plain.length + 8);
    expect(lz4Decode(z, out, 8, plain.length)).toBe(plain.length);
    expect(Buffer.from(out.subarray(8)).equals(plain)).toBe(true);
    for (const want of [0, 1, Math.floor(plain.length / 3), plain.length - 1]) {
      const part = new Uint8Array(want);
      expect(lz4Decode(z, part, 0, want)).toBe(want);
      expect(Buffer.from(part).equals(plain.subarray(0, want))).toBe(true);
    }
    expect(lz4Decode(z, new Uint8Array(plain.length + 1), 0, plain.length + 1)).toBe(-1); // more than it declares
    expect(lz4Decode(z, new Uint8Array(plain.length - 1), 0, plain.length)).toBe(-1); // no room
    if (plain.length > 1) {
      // a size header damaged to declare fewer bytes: decoding all it declares leaves input over
      const short = Buffer.from(z);
      short.writeUInt32LE(plain.length - 1, 0);
      expect(lz4Decode(short, new Uint8Array(plain.length), 0, plain.length - 1)).toBe(-1);
    }
  });

  it('returns -1 (never throws, never writes past its window) on truncated or damaged blocks', () => {
    const plain = Buffer.concat([textPages(4, 8), keystream('d', 2 * PAGE)]);
    const z = compressSync(plain);
    for (let cut = 0; cut < z.length; cut += 7) {
      expect(lz4Decode(z.subarray(0, cut), new Uint8Array(plain.length), 0, plain.length)).toBe(-1);
    }
    const next = rng(16);
    for (let i = 0; i < 300; i++) {
      const bad = Buffer.from(z);
      for (let k = 0; k < 3; k++) bad[4 + Math.floor(next() * (bad.length - 4))] = Math.floor(next() * 256);
      const out = new Uint8Array(plain.length + 64).fill(0xee);
      const n = lz4Decode(bad, out, 32, plain.length);
      expect([-1, plain.length]).toContain(n);
      expect(out.subarray(0, 32).every((b) => b === 0xee)).toBe(true);
      expect(out.subarray(32 + plain.length).every((b) => b === 0xee)).toBe(true);
    }
  });
});

describe('a store written with LZ4 (the default)', () => {
  const text = textPages(7, 48);
  const random = keystream('incompressible', 40 * PAGE); // at least one block of it alone
  const common = Buffer.alloc(PAGE, 3);
  // text, a random stretch (stored raw: LZ4 saves less than 1/8), and one page repeated 20 times across the part
  const data = Buffer.concat([
    ...Array.from({ length: 20 }, (_, i) => [text.subarray(2 * i * PAGE, (2 * i + 2) * PAGE), common]).flat(),
    random,
    text.subarray(40 * PAGE),
  ]);
  let s: Store;
  let m: Manifest;
  beforeAll(async () => {
    s = Store.open(path.join(dir, 'new'));
    const w = s.begin(1);
    await w.put('ram', data);
    m = w.commit();
  });
  afterAll(() => s.close());

  it('stores compressible blocks as LZ4 and incompressible ones raw', () => {
    const codecs = new Set(m.parts[0]!.chunks.map((h) => s.locate(h)!.codec));
    expect([...codecs].sort()).toEqual([0, 3]);
    expect(s.locate(sha(random.subarray(20 * PAGE, 21 * PAGE)))!.codec).toBe(0);
    expect(s.locate(sha(text.subarray(0, PAGE)))!.codec).toBe(3);
  });

  it.each(pools.map((p) => [p.threads, p] as const))(
    'reads back exactly, each distinct chunk hashed once (%i threads)',
    async (_, pool) => {
      const counts: ReadCounts = { chunks: 0, hashed: 0 };
      expect(sha(await readAll(s, m, 'ram', pool, counts))).toBe(sha(data));
      expect(counts.chunks).toBe(data.length / PAGE);
      expect(counts.hashed).toBe(48 + 40 + 1);
      expect(sha(await s.reader(m).get('ram'))).toBe(sha(data));
      expect(verifyStore(s).problems).toEqual([]);
    },
  );
});

describe('a page-split part of several pieces, read into reused pieces', () => {
  // Meta bytes between pages put piece ends mid-chunk: the rest of a chunk goes into the next reused piece before the
  // full one is handed out, while the consumer still has the piece before it (a write in flight: written only when the
  // next piece is in hand; negative control: with two reused pieces instead of three this read writes a wrong file).
  it.each(pools.map((p) => [p.threads, p] as const))('writes the part byte for byte (%i threads)', async (_, pool) => {
    const data = guestStream(5, 900); // ~3.1 MiB: four pieces
    const s = Store.open(path.join(dir, `pages-${pool.threads}`));
    const w = s.begin(1);
    await w.put('ram', data, { chunking: 'qemu-pages' });
    const m = w.commit();
    const p = m.parts[0]!;
    const file = path.join(dir, `pages-${pool.threads}.out`);
    const fd = openSync(file, 'w');
    let prev: Buffer | undefined;
    for await (const piece of partStream(packsOf(s), pool, p, true)) {
      if (prev !== undefined) writeSync(fd, prev);
      prev = piece;
    }
    if (prev !== undefined) writeSync(fd, prev);
    closeSync(fd);
    expect(sha(readFileSync(file))).toBe(sha(data));
    await s.reader(m).writeFile('ram', file);
    expect(sha(readFileSync(file))).toBe(sha(data));
    s.close();
  });
});

describe('a store written with deflate before LZ4 existed', () => {
  it('reads on 0 and 2 threads, verifies, takes LZ4 checkpoints beside it, and gc rewrites it', async () => {
    // test/fixtures/store-deflate: written by main at 257a9e7 with compression 'deflate' (binary index, deflate-raw
    // blocks): per seq 1, 2 a "text" part (24 text pages, 2 random, 8 text pages of seed 0) and a 16-page guest stream.
    const textOf = (seq: number): Buffer =>
      Buffer.concat([textPages(seq, 24), keystream(`raw:${seq}`, 2 * PAGE), textPages(0, 8)]);
    const old = path.join(dir, 'old');
    cpSync(fixturePath('store-deflate'), old, { recursive: true });
    const store = Store.open(old);
    const list = store.list();
    expect(list.map((x) => x.seq)).toEqual([1, 2]);
    expect(store.locate(sha(textPages(1, 1)))!.codec).toBe(2);
    for (const x of list) {
      for (const pool of pools) {
        expect(sha(await readAll(store, x, 'text', pool))).toBe(sha(textOf(x.seq)));
        expect(sha(await readAll(store, x, 'ram', pool))).toBe(sha(guestStream(x.seq, 16)));
      }
    }
    expect(verifyStore(store).problems).toEqual([]);
    // a new checkpoint in LZ4 beside the deflate packs (its deltas may name deflate-stored bases)
    const w = store.begin(30);
    await w.put('text', textOf(3));
    await w.put('ram', guestStream(3, 16), { chunking: 'qemu-pages' });
    const m3 = w.commit();
    expect(store.locate(sha(textPages(3, 1)))!.codec).toBe(3);
    expect(store.locate(sha(textPages(0, 1)))!.codec).toBe(2); // deduplicated against the deflate pack
    for (const pool of pools) expect(sha(await readAll(store, m3, 'text', pool))).toBe(sha(textOf(3)));
    expect(verifyStore(store).problems).toEqual([]);
    gcStore(store, 1);
    expect(verifyStore(store).problems).toEqual([]);
    store.close();
    const reopened = Store.open(old);
    const last = reopened.latest()!;
    expect(sha(await reopened.reader(last).get('text'))).toBe(sha(textOf(3)));
    expect(sha(await reopened.reader(last).get('ram'))).toBe(sha(guestStream(3, 16)));
    reopened.close();
  });
});

describe('negative controls: a damaged LZ4 block is caught by the hash check', () => {
  /** A store of two LZ4 blocks of 16 text pages each, alike in shape (their LZ4 forms have the same length). */
  async function twoBlocks(name: string): Promise<{ s: Store; m: Manifest; file: string }> {
    const s = Store.open(path.join(dir, name));
    const w = s.begin(1);
    await w.put('ram', Buffer.concat([textPages(11, 16), textPages(12, 16)]));
    const m = w.commit();
    const loc = s.locate(m.parts[0]!.chunks[0]!)!;
    s.close();
    return { s, m, file: path.join(dir, name, 'packs', `${loc.pack}.pack`) };
  }
  function patch(file: string, at: number, bytes: Buffer): void {
    const fd = openSync(file, 'r+');
    writeSync(fd, bytes, 0, bytes.length, at);
    closeSync(fd);
  }

  it.each(pools.map((p) => [p.threads, p] as const))(
    'a block swapped for another that decodes fine, naming pack and chunk (%i threads)',
    async (_, pool) => {
      const { m, file } = await twoBlocks(`swapped-${pool.threads}`);
      const fresh = Store.open(path.dirname(path.dirname(file)));
      const chunks = m.parts[0]!.chunks;
      const a = fresh.locate(chunks[0]!)!;
      const b = fresh.locate(chunks[16]!)!;
      expect([a.codec, b.codec, b.length, b.offset === a.offset]).toEqual([3, 3, a.length, false]);
      const bytes = Buffer.alloc(b.length);
      const fd = openSync(file, 'r');
      readSync(fd, bytes, 0, b.length, b.offset);
      closeSync(fd);
      patch(file, a.offset, bytes);
      const got = readAll(fresh, m, 'ram', pool);
      await expect(got).rejects.toBeInstanceOf(IntegrityError);
      await expect(got).rejects.toThrow(
        new RegExp(`chunk ${chunks[0]} in pack ${a.pack} at offset ${a.offset} is corrupt`),
      );
      expect(verifyStore(fresh).problems.map((p) => p.chunk)).toContain(chunks[0]);
      fresh.close();
    },
  );

  it.each(pools.map((p) => [p.threads, p] as const))(
    'a flipped last literal and a damaged size header (%i threads)',
    async (_, pool) => {
      const { m, file } = await twoBlocks(`flipped-${pool.threads}`);
      const root = path.dirname(path.dirname(file));
      let fresh = Store.open(root);
      const chunks = m.parts[0]!.chunks;
      const a = fresh.locate(chunks[0]!)!;
      // an LZ4 block ends in literals: its last byte is the last byte of its last page
      const last = Buffer.alloc(1);
      const fd = openSync(file, 'r');
      readSync(fd, last, 0, 1, a.offset + a.length - 1);
      closeSync(fd);
      patch(file, a.offset + a.length - 1, Buffer.from([last[0]! ^ 0x20]));
      await expect(readAll(fresh, m, 'ram', pool)).rejects.toThrow(
        new RegExp(`chunk ${chunks[15]} in pack ${a.pack} at offset ${a.offset} is corrupt`),
      );
      fresh.close();
      patch(file, a.offset + a.length - 1, last);
      patch(file, a.offset, Buffer.from([100, 0, 0, 0])); // declares 100 plain bytes, fewer than its chunks need
      fresh = Store.open(root);
      await expect(readAll(fresh, m, 'ram', pool)).rejects.toBeInstanceOf(IntegrityError);
      fresh.close();
    },
  );
});
