// The content-addressed store: byte-identical roundtrip (buffers and streams), dedup accounting, what latest() refuses
// (uncommitted, self-check failing, chunks behind a torn pack index), and verification of a flipped byte.
import { createHash, randomBytes } from 'node:crypto';
import {
  closeSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  rmSync,
  truncateSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { IntegrityError } from '../../harness/core/errors.js';
import { manifestFileName, type Manifest } from '../../harness/store/manifest.js';
import { Store } from '../../harness/store/store.js';
import { storeStats, verifyStore } from '../../harness/store/check/verify.js';
import { slices, streamOf } from '../helpers/stream.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'soak-store-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const sha = (b: Uint8Array): string => createHash('sha256').update(b).digest('hex');

/** Deterministic bytes (sha256 counter mode). */
function bytes(label: string, size: number): Buffer {
  const out = Buffer.alloc(size);
  for (let off = 0, i = 0; off < size; off += 32, i++)
    createHash('sha256').update(`${label}:${i}`).digest().copy(out, off);
  return out;
}

/** An async stream of `data` in awkward piece sizes, so chunk boundaries never line up with pieces. */
const pieces = (data: Buffer, size = 1000): AsyncIterable<Uint8Array> =>
  streamOf(Array.from(slices(data, size), (piece) => new Uint8Array(piece)));

async function collect(it: AsyncIterable<Buffer>): Promise<Buffer> {
  const out: Buffer[] = [];
  for await (const b of it) out.push(b);
  return Buffer.concat(out);
}

const A = bytes('a', 10_000); // 3 chunks, the last short
const B = bytes('b', 3 * 4096 + 17);
const sub = (...p: string[]): string => path.join(dir, ...p);
const packFiles = (ext: string): string[] => readdirSync(sub('packs')).filter((f) => f.endsWith(ext));

async function commitAB(store: Store, step: number): Promise<Manifest> {
  const w = store.begin(step);
  await w.put('a', A);
  await w.put('b', pieces(B));
  return w.commit({ note: 'x' });
}

describe('Store roundtrip', () => {
  it('buffer and stream parts read back byte-identical from a freshly opened store', async () => {
    const s = Store.open(dir);
    const m = await commitAB(s, 42);
    s.close();
    expect([m.seq, m.step, m.logicalBytes, m.chunks, m.parts.map((p) => [p.name, p.size, p.chunks.length])]).toEqual([
      1,
      42,
      10_000 + B.length,
      3 + 4,
      [
        ['a', 10_000, 3],
        ['b', B.length, 4],
      ],
    ]);
    expect(m.meta).toEqual({ note: 'x' });

    const r = Store.open(dir);
    const latest = r.latest()!;
    expect(latest).toEqual(m);
    const reader = r.reader(latest);
    expect(reader.parts()).toEqual(['a', 'b']);
    expect(sha(await reader.get('a'))).toBe(sha(A));
    expect(sha(await reader.get('b'))).toBe(sha(B));
    expect(sha(await collect(reader.stream('b')))).toBe(sha(B));
    await reader.writeFile('a', sub('a.out'));
    expect(readFileSync(sub('a.out')).equals(A)).toBe(true);
    await expect(reader.get('c')).rejects.toThrow(/checkpoint 1 has no part "c" \(it has: a, b\)/);
    r.close();
  });

  it('empty parts and within-part repeats: 8 identical 4 KiB blocks store one chunk', async () => {
    const s = Store.open(dir);
    const w = s.begin(1);
    const block = bytes('block', 4096);
    await w.put('repeats', Buffer.concat(Array.from({ length: 8 }, () => block)));
    await w.put('empty', Buffer.alloc(0));
    const m = w.commit();
    expect([m.chunks, m.newChunks]).toEqual([8, 1]);
    expect((await s.reader(m).get('empty')).length).toBe(0);
    expect((await s.reader(m).get('repeats')).equals(Buffer.concat(Array.from({ length: 8 }, () => block)))).toBe(true);
    s.close();
  });

  it("put() takes the bytes as they are at the call: reusing the caller's buffer before commit changes nothing", async () => {
    // A target may refill one buffer per part (e.g. RAM pages) once put() has resolved. The PackWriter keeps a view of
    // the caller's buffer until it flushes (up to 1 MiB), so the chunk hashed at put() is not the one written.
    const s = Store.open(dir);
    const w = s.begin(1);
    const buf = Buffer.from(A);
    await w.put('a', buf);
    buf.fill(0);
    const m = w.commit();
    s.close();
    const r = Store.open(dir);
    expect(verifyStore(r).problems).toEqual([]);
    expect(sha(await r.reader(m).get('a'))).toBe(sha(A));
    r.close();
  });

  it('refuses a part name written twice', async () => {
    const s = Store.open(dir);
    const w = s.begin(1);
    await w.put('a', A);
    await expect(w.put('a', B)).rejects.toThrow('part "a" written twice');
    s.close();
  });
});

describe('dedup', () => {
  it('a second identical checkpoint adds no chunk data; ratio = 2 logical / first stored', async () => {
    const s = Store.open(dir);
    const m1 = await commitAB(s, 1);
    const disk1 = s.diskBytes();
    const m2 = await commitAB(s, 2);
    const added = s.diskBytes() - disk1;
    expect([m2.seq, m2.newChunks, m2.storedBytes]).toEqual([2, 0, 0]);
    expect(m1.newChunks).toBe(7);
    // first stored = 7 chunks of data (the two short tails included) + its pack index
    expect(m1.storedBytes).toBeGreaterThan(A.length + B.length);
    expect(m1.storedBytes).toBeLessThan(A.length + B.length + 2000);
    // just the manifest and its location index (a cache of where its chunks live: store/index/location-index.ts)
    const manifest2 = readFileSync(sub('checkpoints', manifestFileName(2))).length;
    expect(added).toBe(manifest2 + readFileSync(sub('checkpoints', '0000000002.loc')).length);
    expect(packFiles('.pack')).toHaveLength(1);
    const stats = storeStats(s);
    expect(stats.ratio).toBe((2 * m1.logicalBytes) / m1.storedBytes);
    expect(stats.checkpoints.map((r) => [r.seq, r.ratio === null])).toEqual([
      [1, false],
      [2, true],
    ]);
    expect(stats.checkpoints[1]!.cumRatio).toBe(stats.ratio);
    s.close();
  });

  it('a changed chunk costs one chunk: new data is stored, the rest is shared', async () => {
    const s = Store.open(dir);
    await commitAB(s, 1);
    const w = s.begin(2);
    const a2 = Buffer.from(A);
    a2[5000] = a2[5000]! ^ 0xff; // second chunk of "a"
    await w.put('a', a2);
    await w.put('b', B);
    const m = w.commit();
    expect([m.chunks, m.newChunks]).toEqual([7, 1]);
    expect(sha(await s.reader(m).get('a'))).toBe(sha(a2));
    s.close();
  });
});

describe('latest() only returns committed, intact checkpoints', () => {
  it('ignores a checkpoint that was begun and written but never committed', async () => {
    const s = Store.open(dir);
    await commitAB(s, 1);
    const w = s.begin(2);
    await w.put('big', bytes('big', 1_500_000)); // over the 1 MiB flush threshold: pack data reaches disk
    expect(packFiles('.pack')).toHaveLength(2);
    w.abandon();
    s.close();
    const r = Store.open(dir);
    expect(r.list().map((m) => m.seq)).toEqual([1]);
    expect(r.latest()?.seq).toBe(1);
    expect(r.begin(3).seq).toBe(2); // the torn seq is reused
    expect(verifyStore(r).problems).toEqual([]);
    r.close();
  });

  it('ignores a manifest still under its temp name (crash before the rename)', async () => {
    const s = Store.open(dir);
    await commitAB(s, 1);
    const m2 = await commitAB(s, 2);
    s.close();
    const final = sub('checkpoints', manifestFileName(2));
    writeFileSync(sub('checkpoints', `.${manifestFileName(2)}.tmp-999`), JSON.stringify(m2));
    rmSync(final);
    expect(Store.open(dir).latest()?.seq).toBe(1);
  });

  it('ignores a manifest whose check fails (edited seq, torn text), and falls back to the previous one', async () => {
    const s = Store.open(dir);
    const m1 = await commitAB(s, 1);
    s.close();
    writeFileSync(sub('checkpoints', manifestFileName(2)), JSON.stringify({ ...m1, seq: 2 }));
    const text3 = JSON.stringify({ ...m1, seq: 3 });
    writeFileSync(sub('checkpoints', manifestFileName(3)), text3.slice(0, text3.length - 10));
    const r = Store.open(dir);
    expect(r.list().map((m) => m.seq)).toEqual([1]);
    expect(r.latest()?.seq).toBe(1);
    expect(r.begin(9).seq).toBe(4); // the next write never overwrites the evidence of a bad manifest
    r.close();
  });

  it('a torn pack index (truncated .idx) makes its pack ignored: the checkpoint needing it is not latest', async () => {
    const s = Store.open(dir);
    await commitAB(s, 1);
    const before = new Set(packFiles('.idx'));
    const w = s.begin(2);
    await w.put('c', bytes('c', 20_000));
    w.commit();
    s.close();
    const idx2 = packFiles('.idx').find((f) => !before.has(f))!;
    truncateSync(sub('packs', idx2), 40);
    const r = Store.open(dir);
    expect(r.list().map((m) => m.seq)).toEqual([1, 2]);
    expect(r.latest()?.seq).toBe(1);
    // Checkpoint 2's chunk list went into the same pack as its data: verify names the list as unreadable, missing,
    // and the damaged index by its file.
    const v = verifyStore(r);
    expect(v.problems.map((p) => `${p.seq}/${p.part}`)).toEqual(['2/(chunk list)', '0/(pack index)']);
    expect(v.problems[1]!.problem).toContain(sub('packs', idx2));
    expect(v.problems[0]!.problem).toMatch(/checkpoint 2's chunk list cannot be read: .*is missing/);
    r.close();
  });
});

describe('verifyStore', () => {
  it('negative control then a flipped byte: reported by checkpoint seq and part; reading the chunk throws IntegrityError', async () => {
    const s = Store.open(dir);
    const m1 = await commitAB(s, 1);
    await commitAB(s, 2); // shares every chunk with checkpoint 1
    const clean = verifyStore(s);
    expect(clean).toEqual({ checkpoints: 2, chunksChecked: 14, problems: [] });
    s.close();

    const [pack] = packFiles('.pack');
    const fd = openSync(sub('packs', pack!), 'r+');
    const one = Buffer.alloc(1);
    readSync(fd, one, 0, 1, 4096 + 7); // inside the second chunk of the pack: chunk 2 of part "a"
    writeSync(fd, Buffer.from([one[0]! ^ 0x01]), 0, 1, 4096 + 7);
    closeSync(fd);

    const r = Store.open(dir);
    const v = verifyStore(r);
    const bad = m1.parts[0]!.chunks[1]!;
    expect(v.problems.map((p) => [p.seq, p.part, p.chunk])).toEqual([
      [1, 'a', bad],
      [2, 'a', bad],
    ]);
    expect(v.problems[0]!.problem).toMatch(/chunk [0-9a-f]{64} in pack [0-9a-f]{16} at offset 4096 is corrupt/);
    expect(() => r.readChunk(bad)).toThrow(IntegrityError);
    await expect(r.reader(r.latest()!).get('a')).rejects.toBeInstanceOf(IntegrityError);
    expect(sha(await r.reader(r.latest()!).get('b'))).toBe(sha(B)); // other parts still read
    r.close();
  });

  it('counts checkpoints and chunk references of a store with random content', async () => {
    const s = Store.open(dir);
    const w = s.begin(1);
    await w.put('r', randomBytes(9000));
    w.commit();
    expect(verifyStore(s)).toEqual({ checkpoints: 1, chunksChecked: 3, problems: [] });
    s.close();
  });
});
