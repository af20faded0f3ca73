// The whole-part digest: the writer records each part's SHA-256 (put and putFile, every chunking), the manifest's check
// covers it, and a reader rebuilding a part chunk by chunk (verify's way, a ChunkReader double) checks it at the end
// (negative controls: a wrong digest, a wrong byte). The store's fast read hashes each chunk once and not the whole
// part again (part-stream.test.ts); `soak store verify` checks the digests (verify-parts.test.ts).
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { IntegrityError } from '../../harness/core/errors.js';
import { type Manifest, manifestFileName, parseManifest } from '../../harness/store/manifest.js';
import { CheckpointReader, Store } from '../../harness/store/store.js';
import { guestStream } from '../fixtures/guest-stream.mjs';
import { keystream } from '../fixtures/store-content.mjs';
import { slices, streamOf } from '../helpers/stream.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'soak-digest-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const sha = (b: Uint8Array): string => createHash('sha256').update(b).digest('hex');
const RAM = guestStream(1, 300); // a migration stream of 300 pages: over 1 MiB, so a reader yields several pieces
const DISK = keystream('disk', 5 * 4096 + 3);
const CDC = keystream('cdc', 70_000);

async function commitThree(store: Store): Promise<Manifest> {
  const w = store.begin(7);
  await w.put('ram', streamOf(slices(RAM, 1000)), { chunking: 'qemu-pages' });
  const file = path.join(dir, 'disk.bin');
  writeFileSync(file, DISK);
  await w.putFile('disk', file);
  await w.put('cdc', CDC, { chunking: 'cdc' });
  return w.commit();
}

async function collect(it: AsyncIterable<Buffer>, into: Buffer[] = []): Promise<Buffer> {
  for await (const b of it) into.push(b);
  return Buffer.concat(into);
}

/** `m` with part `name`'s recorded digest replaced by another's. */
const withDigest = (m: Manifest, name: string, digest: string): Manifest => ({
  ...m,
  parts: m.parts.map((p) => (p.name === name ? { ...p, sha256: digest } : p)),
});

describe('part digest', () => {
  it('is recorded for put, a stream and putFile, for qemu-pages, fixed and cdc, and read back from a reopened store', async () => {
    const store = Store.open(path.join(dir, 'store'), { compression: 'none' });
    const m = await commitThree(store);
    store.close();
    const expected = { ram: sha(RAM), disk: sha(DISK), cdc: sha(CDC) };
    expect(Object.fromEntries(m.parts.map((p) => [p.name, p.sha256]))).toEqual(expected);
    const text = readFileSync(path.join(dir, 'store', 'checkpoints', manifestFileName(m.seq)), 'utf8');
    const file = parseManifest(text)!; // its check covers the digests: an edited one fails the self-check
    expect(Object.fromEntries(file.parts.map((p) => [p.name, p.sha256]))).toEqual(expected);
    expect(parseManifest(text.replace(expected.disk, sha(RAM)))).toBeNull();
    const reopened = Store.open(path.join(dir, 'store'));
    const r = reopened.reader(reopened.latest()!);
    expect(r.digest('ram')).toBe(expected.ram);
    expect(sha(await r.get('ram'))).toBe(expected.ram);
    expect(sha(await collect(r.stream('cdc')))).toBe(expected.cdc);
    await r.writeFile('disk', path.join(dir, 'out.bin'));
    expect(sha(readFileSync(path.join(dir, 'out.bin')))).toBe(expected.disk);
    reopened.close();
  });

  it('negative control: a wrong digest is caught by get, stream (before the last piece) and writeFile', async () => {
    const store = Store.open(path.join(dir, 'store'), { compression: 'none' });
    const m = await commitThree(store);
    const bad = new CheckpointReader(chunksOf(store), withDigest(m, 'ram', sha(DISK)));
    await expect(bad.get('ram')).rejects.toThrow(IntegrityError);
    await expect(bad.get('ram')).rejects.toThrow(/checkpoint 1 part "ram": the rebuilt bytes hash to/);
    const got: Buffer[] = [];
    await expect(collect(bad.stream('ram'), got)).rejects.toThrow(IntegrityError);
    expect(got.length).toBeGreaterThan(0); // streamed on the way...
    expect(Buffer.concat(got).length).toBeLessThan(RAM.length); // ...but never whole
    await expect(bad.writeFile('ram', path.join(dir, 'x'))).rejects.toThrow(IntegrityError);
    expect(sha(await store.reader(m).get('ram'))).toBe(sha(RAM)); // the true manifest still reads
    store.close();
  });

  it('negative control: a reader that rebuilds one byte wrong is caught at the end of the part', async () => {
    const store = Store.open(path.join(dir, 'store'), { compression: 'none' });
    const m = await commitThree(store);
    const honest = store.reader(m);
    // Chunks come back as stored, one byte of one page flipped after its own hash check: only the part digest sees it.
    const pageHash = m.parts.find((p) => p.name === 'ram')!.chunks.at(-5)!;
    const flipped = {
      readChunk: (h: string): Buffer => {
        const b = Buffer.from(chunksOf(store).readChunk(h));
        if (h === pageHash) b[100] = b[100]! ^ 1;
        return b;
      },
    };
    await expect(new CheckpointReader(flipped, m).get('ram')).rejects.toThrow(/checkpoint 1 part "ram"/);
    expect(sha(await honest.get('ram'))).toBe(sha(RAM));
    store.close();
  });

  it('a manifest without part digests (older stores) reads unchecked', async () => {
    const store = Store.open(path.join(dir, 'store'), { compression: 'none' });
    const m = await commitThree(store);
    const old = store.reader({ ...m, parts: m.parts.map(({ sha256: _d, ...p }) => p) });
    expect(old.digest('ram')).toBeUndefined();
    expect(sha(await old.get('ram'))).toBe(sha(RAM));
    store.close();
  });
});

interface CheckpointChunks {
  readChunk(hash: string): Buffer;
}

/** The store's chunks as a plain ChunkReader (read chunk by chunk, not the fast path). */
function chunksOf(store: Store): CheckpointChunks {
  const packs = (store as unknown as { internals: { packs: CheckpointChunks } }).internals.packs;
  return { readChunk: (h) => packs.readChunk(h) };
}
