// Store.newest(since): resolving only the manifests committed after an earlier result gives the same answer as a full
// read: a newer complete checkpoint is found, newer damaged ones are passed over and named, and an earlier result
// that passed something over, or came from another store, is not trusted (a full read).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Store } from '../../harness/store/store.js';
import { commitNext, fillStore, pagesOf } from '../helpers/store.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'soak-newest-since-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const commitOne = (): Promise<number> => commitNext(dir);

/** A manifest file that fails its check, named as checkpoint `seq`. */
function damagedManifest(seq: number): string {
  const file = path.join(dir, 'checkpoints', `${String(seq).padStart(10, '0')}.json`);
  writeFileSync(file, '{"garbage": true');
  return file;
}

describe('Store.newest(since)', () => {
  it('finds a checkpoint committed after the earlier result', async () => {
    await fillStore(dir, 3);
    const store = Store.open(dir);
    try {
      const first = store.newest();
      expect(first.manifest?.seq).toBe(3);
      await commitOne();
      const next = store.newest(first);
      expect(next.manifest?.seq).toBe(4);
      expect(next.skipped).toEqual([]);
      expect(next.manifest).toEqual(store.newest().manifest); // the full read agrees
    } finally {
      store.close();
    }
  });

  it('with nothing new, answers with the earlier result; a newer damaged manifest is passed over and named', async () => {
    await fillStore(dir, 3);
    const store = Store.open(dir);
    try {
      const first = store.newest();
      expect(store.newest(first).manifest?.seq).toBe(3);
      const file = damagedManifest(4);
      const next = store.newest(first);
      expect(next.manifest?.seq).toBe(3);
      expect(next.skipped.map((s) => s.file)).toEqual([file]);
      expect(next).toEqual(store.newest());
    } finally {
      store.close();
    }
  });

  it('after an earlier result that passed something over, a later one agrees with a full read', async () => {
    await fillStore(dir, 3);
    const store = Store.open(dir);
    try {
      damagedManifest(4);
      const first = store.newest();
      expect(first.skipped).toHaveLength(1);
      await commitOne(); // checkpoint 5
      const next = store.newest(first);
      expect(next.manifest?.seq).toBe(5);
      expect(next).toEqual(store.newest());
    } finally {
      store.close();
    }
  });

  it("ignores another store's result (read in full)", async () => {
    const other = mkdtempSync(path.join(os.tmpdir(), 'soak-newest-other-'));
    try {
      await fillStore(dir, 3);
      await fillStore(other, 3, (seq) => pagesOf(seq, 8)); // same seqs, other contents
      const a = Store.open(other);
      const b = Store.open(dir);
      try {
        const fromA = a.newest();
        const fromB = b.newest(fromA);
        expect(fromB.manifest).toEqual(b.newest().manifest);
        expect(fromB.manifest?.parts).not.toEqual(fromA.manifest?.parts);
      } finally {
        a.close();
        b.close();
      }
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  });
});
