// Retention (gc): gc keeps exactly the newest N checkpoints and what they need, reclaims the rest, never carries a
// corrupt chunk over. Compression is transparent. (Locks: lock.test.ts; damaged manifests: manifest-damage.test.ts;
// SIGKILL at random points during gc: torture.test.ts.)
import {
  closeSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError, EXIT, IntegrityError } from '../../harness/core/errors.js';
import { gcStore } from '../../harness/store/gc.js';
import { Store } from '../../harness/store/store.js';
import { verifyStore } from '../../harness/store/check/verify.js';
import { bytes, sha } from '../helpers/bytes.js';
import { flipStoredByte } from '../helpers/store.js';
import { thrown } from '../helpers/thrown.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'soak-gc-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const shared = bytes('shared', 64 * 4096);
/** Checkpoint i: a shared part, a part of its own, and a compressible text part. */
const parts = (i: number): Record<string, Buffer> => ({
  shared,
  own: bytes(`own${i}`, 20 * 4096 + 5),
  text: Buffer.from(`checkpoint ${i} `.repeat(3000)),
});

async function fill(store: Store, n: number): Promise<void> {
  for (let i = 1; i <= n; i++) {
    const w = store.begin(i * 10);
    for (const [name, data] of Object.entries(parts(w.seq))) await w.put(name, data);
    w.commit();
  }
}

async function expectRestores(store: Store, seq: number): Promise<void> {
  const m = store.list().find((x) => x.seq === seq)!;
  const r = store.reader(m);
  for (const [name, data] of Object.entries(parts(seq)))
    expect(sha(await r.get(name)), `seq ${seq} ${name}`).toBe(sha(data));
}

describe('gc --keep N', () => {
  it('keeps exactly the newest N, reclaims the rest, and the kept ones verify and restore byte-identical', async () => {
    const store = Store.open(dir);
    await fill(store, 6);
    const before = store.diskBytes();
    const report = gcStore(store, 2);
    expect(report.kept).toEqual([5, 6]);
    expect(report.removed).toEqual([1, 2, 3, 4]);
    expect(store.list().map((m) => m.seq)).toEqual([5, 6]);
    expect(verifyStore(store).problems).toEqual([]);
    await expectRestores(store, 5);
    await expectRestores(store, 6);
    // Checkpoints 2-4's own packs were wholly dead and went; pack 1 held the shared chunks and was rewritten.
    expect(report.packsRewritten).toBeGreaterThanOrEqual(1);
    expect(report.packsDeleted).toBeGreaterThanOrEqual(3);
    expect(report.chunksDropped).toBeGreaterThan(0);
    expect(store.diskBytes()).toBeLessThan(before * 0.6);
    expect(report.bytesAfter).toBeLessThan(report.bytesBefore);
    // The next checkpoint continues the numbering and still dedups against what gc kept.
    const w = store.begin(70);
    await w.put('shared', shared);
    const m = w.commit();
    expect(m.seq).toBe(7);
    expect(m.newChunks).toBe(0);
    store.close();
    // Nothing to do the second time.
    const again = gcStore(Store.open(dir), 3);
    expect([again.removed, again.packsRewritten, again.chunksCopied]).toEqual([[], 0, 0]);
  });

  it('removes torn packs (no index), refuses beside a manifest that fails its check, and stops when a kept chunk list is lost', async () => {
    const store = Store.open(dir);
    await fill(store, 3);
    writeFileSync(path.join(dir, 'packs', 'deadbeefdeadbeef.pack'), 'torn');
    writeFileSync(path.join(dir, 'checkpoints', '0000000099.json'), '{"torn":');
    // A manifest that fails its check could name any chunk: gc deletes nothing and names it (exit 1).
    const refused = thrown(() => gcStore(store, 3));
    expect(refused).toBeInstanceOf(IntegrityError);
    expect(refused.message).toContain('0000000099.json');
    expect(readdirSync(path.join(dir, 'packs'))).toContain('deadbeefdeadbeef.pack');
    rmSync(path.join(dir, 'checkpoints', '0000000099.json'));
    const report = gcStore(store, 3);
    expect(report.tornPacksRemoved).toBe(1);
    // A damaged index hides checkpoint 3's pack, its chunk list included: gc cannot know what 3 needs, so it stops
    // (exit 1) before deleting anything, naming the index, and the pack whose index is damaged stays as evidence
    // (pack-index-damage.test.ts: an index truncated mid-entry, of a kept and of a removed checkpoint).
    const m3 = store.list().at(-1)!;
    const pack3 = store.locate(m3.parts[1]!.chunks[0]!)!.pack;
    writeFileSync(path.join(dir, 'packs', `${pack3}.idx`), '{"damaged":');
    const before = [...readdirSync(path.join(dir, 'packs')), ...readdirSync(path.join(dir, 'checkpoints'))].sort();
    const err = thrown(() => gcStore(store, 1));
    expect(err).toBeInstanceOf(IntegrityError);
    expect(err.message).toContain(`pack index ${path.join(dir, 'packs', `${pack3}.idx`)} is neither`);
    expect([...readdirSync(path.join(dir, 'packs')), ...readdirSync(path.join(dir, 'checkpoints'))].sort()).toEqual(
      before,
    );
    store.close();
  });

  it('stops before deleting anything when a chunk it must copy is corrupt (IntegrityError, exit 1)', async () => {
    const store = Store.open(dir);
    await fill(store, 4);
    // Corrupt the shared part's first chunk inside pack 1 (which gc must rewrite: its "own" chunks are dead).
    const m1 = store.list()[0]!;
    flipStoredByte(store, m1.parts[0]!.chunks[0]!, 0, 0xff);
    const manifestsBefore = readdirSync(path.join(dir, 'checkpoints')).sort();
    const err = thrown(() => gcStore(store, 1));
    expect(err).toBeInstanceOf(IntegrityError);
    expect(err).toHaveProperty('exitCode', EXIT.fail);
    expect(err.message).toMatch(/corrupt/);
    expect(readdirSync(path.join(dir, 'checkpoints')).sort()).toEqual(manifestsBefore);
    store.close();
  });

  it('rejects --keep below 1 (bad input, exit 3)', async () => {
    const store = Store.open(dir);
    await fill(store, 1);
    for (const keep of [0, -1, 1.5]) expect(thrown(() => gcStore(store, keep))).toBeInstanceOf(ConfigError);
    expect(store.list()).toHaveLength(1);
    store.close();
  });

  it("refuses a store whose packs are another store's (a multi-session run's session store), deleting nothing", async () => {
    // two sessions' stores sharing one packs folder, as run/sessions.ts lays them out
    const a = Store.open(path.join(dir, 'a'));
    await fill(a, 3);
    a.close();
    mkdirSync(path.join(dir, 'b'));
    symlinkSync(path.join('..', 'a', 'packs'), path.join(dir, 'b', 'packs'));
    const b = Store.open(path.join(dir, 'b'));
    const w = b.begin(1);
    await w.put('own', bytes('b-own', 8 * 4096));
    w.commit();
    const packsBefore = readdirSync(path.join(dir, 'a', 'packs')).sort();
    const err = thrown(() => gcStore(b, 1));
    expect(err).toBeInstanceOf(ConfigError);
    expect(err.message).toMatch(/b\/packs is shared with other stores \(a link to \.\.\/a\/packs.*nothing deleted/);
    b.close();
    expect(readdirSync(path.join(dir, 'a', 'packs')).sort()).toEqual(packsBefore);
    const again = Store.open(path.join(dir, 'a'));
    expect(verifyStore(again).problems).toEqual([]);
    await expectRestores(again, 3);
    // the control: the store that owns its packs folder is collected
    expect(gcStore(again, 1).kept).toEqual([3]);
    again.close();
  });
});

describe('compression', () => {
  it('stores compressible chunks compressed (LZ4 by default) and reads them back byte-identical; incompressible ones stay raw', async () => {
    const z = Store.open(path.join(dir, 'z'));
    const raw = Store.open(path.join(dir, 'raw'), { compression: 'none' });
    for (const s of [z, raw]) await fill(s, 2);
    const zs = z.list().reduce((a, m) => a + m.storedBytes, 0);
    const rs = raw.list().reduce((a, m) => a + m.storedBytes, 0);
    expect(zs).toBeLessThan(rs); // the text part shrinks
    // Text chunks sit in an LZ4 block; the random "shared" chunks fill blocks that do not shrink and stay raw.
    const textChunk = z.list()[0]!.parts.find((p) => p.name === 'text')!.chunks[0]!;
    const sharedChunk = z.list()[0]!.parts.find((p) => p.name === 'shared')!.chunks[0]!;
    expect(z.locate(textChunk)!.codec).toBe(3);
    expect(z.locate(sharedChunk)!.codec).toBe(0);
    await expectRestores(z, 2);
    expect(verifyStore(z).problems).toEqual([]);
    // A flipped byte inside a compressed chunk is reported like any other.
    // A flipped byte inside a compressed block is reported for every chunk of that block.
    const loc = z.locate(textChunk)!;
    const file = path.join(dir, 'z', 'packs', `${loc.pack}.pack`);
    const fd = openSync(file, 'r+');
    writeSync(fd, Buffer.from([0xff ^ readFileSync(file)[loc.offset + 3]!]), 0, 1, loc.offset + 3);
    closeSync(fd);
    const reopened = Store.open(path.join(dir, 'z'));
    // (The same block may also hold the checkpoint's chunk list: then the list is what verify names.)
    const problems = verifyStore(reopened).problems;
    expect(
      problems.some((p) => p.seq === 1 && (p.chunk === textChunk || p.part === '(chunk list)')),
      JSON.stringify(problems),
    ).toBe(true);
    for (const s of [z, raw, reopened]) s.close();
  });
});
