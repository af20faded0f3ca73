// Per-checkpoint location index (checkpoints/NNNNNNNNNN.loc): where every chunk one checkpoint needs lives (its parts'
// chunks, its chunk list, the bases of its deltas), so a restore opens the store by reading the newest manifest and
// this file instead of every pack index: the cost follows the checkpoint's size, not the store's history. A cache:
// written atomically before its manifest, self-checking; missing, torn or failing its check, the store reads the pack
// indexes instead and writes it again. gc removes them all before it removes any pack; verify checks them.
import { existsSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { writeFileAtomic } from '../../core/durable.js';
import type { Manifest } from '../manifest.js';
import { type ChunkLocation, decodePackIndex, encodePackIndex, entryLocation, type IndexEntry } from './pack-index.js';

const MAGIC = Buffer.from('SOAKLOC\x01', 'latin1');

/** Location index files in checkpoints/ (manifests are .json). */
export const LOCATION_FILE = /^\d{10}\.loc$/;

/** The file name of checkpoint `seq`'s location index. */
export function locationFileName(seq: number): string {
  return `${String(seq).padStart(10, '0')}.loc`;
}

/** Every chunk a read of `m` needs before delta bases: its chunk list's chunks, then its parts' chunks. */
export function chunksOf(m: Manifest): Set<string> {
  const out = new Set<string>(m.listChunks ?? m.chunkList ?? []);
  for (const p of m.parts) for (const h of p.chunks) out.add(h);
  return out;
}

/** The index entry that describes `loc` (the inverse of entryLocation). */
function locationEntry(h: string, loc: ChunkLocation): IndexEntry {
  if (loc.codec === 0 && loc.base === undefined) return [h, loc.offset, loc.length];
  if (loc.base === undefined) return [h, loc.offset, loc.length, loc.codec, loc.inner, loc.rawLength];
  return [h, loc.offset, loc.length, loc.codec, loc.inner, loc.rawLength, loc.base];
}

/**
 * The bytes of checkpoint `seq`'s location index: MAGIC, u32le seq, u32le pack count, then per pack a u32le length and
 * that pack's entries as a self-checking pack index (pack-index.ts). Null when a chunk (or a delta's base) is not
 * located: a checkpoint the store cannot fully read gets no location index.
 */
export function encodeLocations(
  seq: number,
  m: Manifest,
  locate: (h: string) => ChunkLocation | undefined,
): Buffer | null {
  const byPack = new Map<string, IndexEntry[]>();
  const seen = new Set<string>();
  const add = (h: string): boolean => {
    if (seen.has(h)) return true;
    const loc = locate(h);
    if (loc === undefined) return false;
    seen.add(h);
    let list = byPack.get(loc.pack);
    if (!list) byPack.set(loc.pack, (list = []));
    list.push(locationEntry(h, loc));
    return loc.base === undefined || add(loc.base);
  };
  for (const h of chunksOf(m)) if (!add(h)) return null;
  const head = Buffer.allocUnsafe(MAGIC.length + 8);
  MAGIC.copy(head);
  head.writeUInt32LE(seq, MAGIC.length);
  head.writeUInt32LE(byPack.size, MAGIC.length + 4);
  const pieces: Buffer[] = [head];
  for (const [pack, entries] of byPack) {
    const body = encodePackIndex(pack, entries);
    const len = Buffer.allocUnsafe(4);
    len.writeUInt32LE(body.length);
    pieces.push(len, body);
  }
  return Buffer.concat(pieces);
}

/** Parse a location index of checkpoint `seq`: its chunk locations, or null when it is torn, damaged or another's. */
export function decodeLocations(buf: Buffer, seq: number): Array<[string, ChunkLocation]> | null {
  try {
    if (buf.length < MAGIC.length + 8 || !buf.subarray(0, MAGIC.length).equals(MAGIC)) return null;
    if (buf.readUInt32LE(MAGIC.length) !== seq) return null;
    const packs = buf.readUInt32LE(MAGIC.length + 4);
    const out: Array<[string, ChunkLocation]> = [];
    let at = MAGIC.length + 8;
    for (let i = 0; i < packs; i++) {
      const len = buf.readUInt32LE(at);
      if (at + 4 + len > buf.length) return null;
      const idx = decodePackIndex(buf.subarray(at + 4, at + 4 + len));
      for (const e of idx.entries) out.push([e[0], entryLocation(idx.pack, e)]);
      at += 4 + len;
    }
    return at === buf.length ? out : null;
  } catch {
    return null;
  }
}

/** Checkpoint `seq`'s location index as read from `checkpointsDir`; null when absent, torn or damaged. */
export function readLocations(checkpointsDir: string, seq: number): Array<[string, ChunkLocation]> | null {
  const file = path.join(checkpointsDir, locationFileName(seq));
  if (!existsSync(file)) return null;
  try {
    return decodeLocations(readFileSync(file), seq);
  } catch {
    return null;
  }
}

/** Write checkpoint `m`'s location index atomically (false: some chunk it needs is not located, nothing written). */
export function writeLocations(
  checkpointsDir: string,
  m: Manifest,
  locate: (h: string) => ChunkLocation | undefined,
): boolean {
  const bytes = encodeLocations(m.seq, m, locate);
  if (bytes === null) return false;
  writeFileAtomic(path.join(checkpointsDir, locationFileName(m.seq)), bytes);
  return true;
}

/**
 * Drop the location indexes of checkpoints older than `seq - 1` that a writer left (only the newest two are kept, so
 * they cost a checkpoint's chunk count, not the history's). Not fsynced: one that comes back after a crash is still
 * right, since gc removes them all before it moves any chunk.
 */
export function dropOldLocations(checkpointsDir: string, seq: number): void {
  for (const old of [seq - 2, seq - 3])
    if (old > 0) rmSync(path.join(checkpointsDir, locationFileName(old)), { force: true });
}
