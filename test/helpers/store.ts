// Corrupting a stored chunk on purpose (negative controls of verify and gc): find a chunk through the store's own
// manifests and pack indexes, know every chunk and checkpoint a flip of its stored bytes damages, flip one byte there;
// and small stores of RAM-like checkpoints to do it on.
import { createHash } from 'node:crypto';
import { closeSync, openSync, readdirSync, readSync, writeSync } from 'node:fs';
import path from 'node:path';
import { readPackIndex } from '../../harness/store/index/pack-index.js';
import type { PackReader } from '../../harness/store/read/pack-reader.js';
import { Store } from '../../harness/store/store.js';

/** A store's pack reader (its internals), for tests of the read path below Store.reader. */
export const packsOf = (s: Store): PackReader => (s as unknown as { internals: { packs: PackReader } }).internals.packs;

/** XOR `mask` into the byte `at` bytes into chunk `h`'s stored bytes (its deflated block, if compressed) in its pack file. */
export function flipStoredByte(store: Store, h: string, at = 0, mask = 0x40): void {
  const loc = store.locate(h);
  if (!loc) throw new Error(`chunk ${h} is not in the store`);
  const fd = openSync(path.join(store.dir, 'packs', `${loc.pack}.pack`), 'r+');
  try {
    const b = Buffer.alloc(1);
    readSync(fd, b, 0, 1, loc.offset + at);
    b[0]! ^= mask;
    writeSync(fd, b, 0, 1, loc.offset + at);
  } finally {
    closeSync(fd);
  }
}

/** Who uses which chunk and where each is stored, read once from a store's manifests and pack indexes. */
export interface ChunkMap {
  /** Every chunk a flip in `h`'s stored bytes damages: those stored in the same bytes (its block) and deltas on them. */
  damagedWith(h: string): Set<string>;
  /** Who `chunks` serve: "<seq> <part>" of each part holding one of them; seqs of the chunk lists holding one. */
  usersOf(chunks: ReadonlySet<string>): { parts: Set<string>; lists: Set<number> };
}

/** Map the store as it is now (every checkpoint intact). */
export function chunkMap(store: Store): ChunkMap {
  const where = new Map<string, string>(); // chunk -> "<pack> <offset>" of its stored bytes
  const stored = new Map<string, string[]>(); // "<pack> <offset>" -> chunks
  const deltasOn = new Map<string, string[]>(); // base -> deltas
  for (const f of readdirSync(path.join(store.dir, 'packs')).filter((x) => x.endsWith('.idx'))) {
    for (const e of readPackIndex(path.join(store.dir, 'packs', f))?.entries ?? []) {
      const key = `${f} ${e[1]}`;
      where.set(e[0], key);
      stored.set(key, [...(stored.get(key) ?? []), e[0]]);
      if (e.length === 7) deltasOn.set(e[6], [...(deltasOn.get(e[6]) ?? []), e[0]]);
    }
  }
  const manifests = store.list();
  for (const m of manifests) if (m.broken) throw new Error(`checkpoint ${m.seq} is already broken: ${m.broken}`);
  return {
    damagedWith(h) {
      const key = where.get(h);
      if (key === undefined) throw new Error(`chunk ${h} is not in the store`);
      const damaged = new Set(stored.get(key));
      for (const c of [...damaged]) for (const d of deltasOn.get(c) ?? []) damaged.add(d);
      return damaged;
    },
    usersOf(chunks) {
      const parts = new Set<string>();
      const lists = new Set<number>();
      for (const m of manifests) {
        for (const p of m.parts) if (p.chunks.some((c) => chunks.has(c))) parts.add(`${m.seq} ${p.name}`);
        if ((m.listChunks ?? []).some((c) => chunks.has(c))) lists.add(m.seq);
      }
      return { parts, lists };
    },
  };
}

/**
 * Checkpoint `seq`'s RAM-like part: 64 KiB of fixed pages with one page changed per checkpoint (the seq written at
 * `offset` into page seq % 16), so each checkpoint adds a chunk or two and shares the rest.
 */
export function pagesOf(seq: number, offset = 0): Buffer {
  const out = Buffer.alloc(64 * 1024);
  for (let o = 0; o < out.length; o += 32) createHash('sha256').update(`${o}`).digest().copy(out, o);
  out.writeUInt32LE(seq, 4096 * (seq % 16) + offset);
  return out;
}

/** Commit checkpoints 1..n into the store at `dir` (each a `ram` part from `ram(i)` and a small `tool` part). */
export async function fillStore(dir: string, n: number, ram: (seq: number) => Buffer = pagesOf): Promise<void> {
  const s = Store.open(dir);
  for (let i = 1; i <= n; i++) {
    const w = s.begin(i);
    await w.put('ram', ram(i));
    await w.put('tool', Buffer.from(`step ${i}`));
    w.commit();
  }
  s.close();
}

/** Commit the next checkpoint into the store at `dir` through a Store of its own (another process's writer, as a live
 * session host is): a `ram` part of pagesOf(seq) and a small `tool` part; its seq. */
export async function commitNext(dir: string): Promise<number> {
  const w = Store.open(dir);
  try {
    const seq = w.lastSeq() + 1;
    const c = w.begin(seq);
    await c.put('ram', pagesOf(seq));
    await c.put('tool', Buffer.from(`step ${seq}`));
    return c.commit().seq;
  } finally {
    w.close();
  }
}
