// Stores that share one packs folder (a multi-session run's session stores, run/sessions.ts): a writer finds the
// chunks another store's writer sealed after it opened (cross-session dedup), and neededBytes counts what each
// store's checkpoints need, so the run can say what stores of their own would have held.
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { neededBytes } from '../../harness/store/check/needed-bytes.js';
import { verifyStore } from '../../harness/store/check/verify.js';
import { Store } from '../../harness/store/store.js';
import { bytes } from '../helpers/bytes.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'soak-shared-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** Stores a and b, b's packs/ a link to a's, both opened before either writes (sessions start together). */
function twoStores(): [Store, Store] {
  const a = Store.open(path.join(dir, 'a'));
  mkdirSync(path.join(dir, 'b'));
  symlinkSync(path.join('..', 'a', 'packs'), path.join(dir, 'b', 'packs'));
  return [a, Store.open(path.join(dir, 'b'))];
}

const heap = bytes('heap', 256 * 4096);
const log = (n: number): Buffer => Buffer.from(Array.from({ length: n }, (_, i) => `step ${i + 1}\n`).join(''));

async function checkpoint(s: Store, step: number): Promise<{ storedBytes: number; logicalBytes: number }> {
  const w = s.begin(step);
  await w.put('heap', heap);
  await w.put('log', log(step * 50), { chunking: 'cdc' });
  return w.commit();
}

describe('stores sharing one packs folder', () => {
  it('a writer does not store again what another store sealed after it opened, and both restore', async () => {
    const [a, b] = twoStores();
    const own = b.begin(1); // b wrote before a did: its chunk index is complete, and only begin() can tell it what a sealed
    await own.put('own', bytes('b-own', 8 * 4096));
    own.commit();
    const first = await checkpoint(a, 10);
    const second = await checkpoint(b, 10);
    expect(first.storedBytes).toBeGreaterThan(heap.length / 2);
    // the same content: b adds no chunk data, only its pack index and chunk list (a few hundred bytes)
    expect(second.storedBytes).toBeLessThan(first.storedBytes / 50);
    for (const s of [a, b]) {
      expect(verifyStore(s).problems).toEqual([]);
      const r = s.reader(s.list().at(-1)!);
      expect((await r.get('heap')).equals(heap)).toBe(true);
      expect((await r.get('log')).equals(log(500))).toBe(true);
    }
    a.close();
    b.close();
  });

  it('neededBytes counts what each store needs, once per store: their sum is what stores of their own hold', async () => {
    const [a, b] = twoStores();
    await checkpoint(a, 10);
    await checkpoint(a, 11);
    await checkpoint(b, 10);
    const [needA = 0, needB = 0] = neededBytes(path.join(dir, 'a', 'packs'), [a.scan().manifests, b.scan().manifests]);
    const stored = [a, b].flatMap((s) => s.scan().manifests).reduce((t, m) => t + m.storedBytes, 0);
    // b needs about what a's first checkpoint stored; a needs that plus its second log's new chunks
    expect(needB).toBeGreaterThan(heap.length / 2);
    expect(needA).toBeGreaterThanOrEqual(needB);
    expect(needA + needB).toBeGreaterThan(1.8 * stored); // apart: nearly twice what the shared folder holds
    // the control: a store of its own holding b's checkpoint needs what neededBytes said b needs, give or take its index
    const own = Store.open(path.join(dir, 'own'));
    const alone = await checkpoint(own, 10);
    expect(Math.abs(alone.storedBytes - needB)).toBeLessThan(alone.storedBytes * 0.05);
    for (const s of [a, b, own]) s.close();
  });
});
