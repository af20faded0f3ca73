// A standby's pre-read of the newest checkpoint (standby-newest.ts) on a real store: a checkpoint committed after the
// pre-read but before the hand-off is the one the hand-off gives, whether or not the commit's inotify signal was
// seen yet; negative control: the test-only stale switch gives the pre-read checkpoint, the one the checker's
// not-latest check catches.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { NewestPreRead } from '../../harness/session/standby-newest.js';
import { Store } from '../../harness/store/store.js';
import type { Manifest } from '../../harness/store/manifest.js';
import { WarmChunks } from '../../harness/store/read/warm-chunks.js';
import { commitNext, fillStore, pagesOf } from '../helpers/store.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'soak-standby-newest-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const commitOne = (): Promise<number> => commitNext(dir);

/** Let the event loop turn until `done` holds (fs.watch events arrive when they arrive: no fixed sleep). */
async function until(done: () => boolean, limitMs = 20_000): Promise<void> {
  const start = Date.now();
  while (!done()) {
    if (Date.now() - start > limitMs) throw new Error('condition not reached');
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe('NewestPreRead', () => {
  it('the hand-off gives a checkpoint committed after the pre-read, before its signal is handled', async () => {
    await fillStore(dir, 2);
    const store = Store.open(dir);
    try {
      const pre = new NewestPreRead(store);
      await pre.start();
      const seq = await commitOne(); // no turn of the event loop between this commit and the hand-off's read
      const { manifest, skipped } = pre.take();
      expect(manifest?.seq).toBe(seq);
      expect(skipped).toEqual([]);
    } finally {
      store.close();
    }
  });

  it('pre-reads on each commit while it waits, and the hand-off still resolves the newest', async () => {
    await fillStore(dir, 1);
    const store = Store.open(dir);
    const reads: number[] = [];
    const newest = store.newest.bind(store);
    store.newest = (since) => {
      const n = newest(since);
      reads.push(n.manifest?.seq ?? 0);
      return n;
    };
    try {
      const pre = new NewestPreRead(store);
      await pre.start();
      for (let i = 0; i < 3; i++) {
        const seq = await commitOne();
        await until(() => reads.includes(seq)); // the inotify signal made the standby pre-read it
      }
      expect(pre.take().manifest?.seq).toBe(4);
      expect([...new Set(reads)]).toEqual([1, 2, 3, 4]); // one pre-read per commit signal (a burst may repeat one)
    } finally {
      store.close();
    }
  });

  it('keeps a warm copy of each newest checkpoint while it waits (read from memory at the hand-off), none after it', async () => {
    await fillStore(dir, 1);
    const store = Store.open(dir);
    const warm = new WarmChunks();
    const lines: string[] = [];
    const digest = (m: Manifest): string | undefined => m.parts.find((p) => p.name === 'ram')!.sha256;
    try {
      const pre = new NewestPreRead(store, false, warm, (l) => lines.push(l));
      await pre.start(); // ready only once the newest checkpoint is warm
      expect(warm.whole('ram', digest(store.latest()!))).toBeDefined();
      await commitOne();
      await until(() => lines.some((l) => l.startsWith('warm copy of checkpoint 2:')));
      const { manifest } = pre.take();
      expect(manifest?.seq).toBe(2);
      const r = store.reader(manifest!, warm);
      expect((await r.get('ram')).equals(pagesOf(2))).toBe(true);
      expect(r.counts.hashed).toBe(0); // nothing read from the store at the hand-off
      await commitOne(); // after the hand-off: not warmed
      await new Promise((r) => setTimeout(r, 300)); // several event-loop turns: only the absence is asserted
      expect(lines.filter((l) => l.includes('checkpoint 3'))).toEqual([]);
      expect(warm.whole('ram', digest(store.newest().manifest!))).toBeUndefined();
    } finally {
      store.close();
    }
  });

  it('negative control: the stale switch hands over the pre-read checkpoint, not the newest', async () => {
    await fillStore(dir, 2);
    const store = Store.open(dir);
    try {
      const pre = new NewestPreRead(store, true);
      const started = pre.start(); // waits for a newer checkpoint than its pre-read
      await commitOne();
      await started;
      expect(pre.take().manifest?.seq).toBe(2);
      expect(store.newest().manifest?.seq).toBe(3);
    } finally {
      store.close();
    }
  });
});
