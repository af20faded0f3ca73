// Reading and (re)writing the consolidated chunk index (consolidated-index.ts) from the pack indexes: the current one
// if it is fresh, plus every intact pack index it does not cover, written atomically (temp, fsync, rename).
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { writeFileAtomic } from '../../core/durable.js';
import { CONSOLIDATED_FILE, ConsolidatedIndex, consolidatable, encodeConsolidated } from './consolidated-index.js';
import { type ChunkLocation, entryLocation, readPackIndex } from './pack-index.js';

/** Write a new consolidated index once this many packs are read one by one on top of it (or this many chunks). */
export const CONSOLIDATE_AFTER_PACKS = 16;
export const CONSOLIDATE_AFTER_CHUNKS = 32_768;

/** The pack index files of `packDir`. */
export function packIndexFiles(packDir: string): string[] {
  return readdirSync(packDir).filter((f) => f.endsWith('.idx'));
}

/**
 * The consolidated index of `packDir`, or null when it is missing, torn, fails its check, or is stale: it covers a
 * pack none of `idxFiles` (the pack index files there now) is the index of (gc removed or rewrote that pack).
 */
export function readConsolidated(packDir: string, idxFiles: Iterable<string>): ConsolidatedIndex | null {
  let index: ConsolidatedIndex | null;
  try {
    index = ConsolidatedIndex.decode(readFileSync(path.join(packDir, CONSOLIDATED_FILE)));
  } catch {
    return null;
  }
  if (!index) return null;
  const present = new Set(idxFiles);
  return index.packs.every((p) => present.has(`${p}.idx`)) ? index : null;
}

/**
 * Write a consolidated index of `packDir` covering its fresh consolidated index (if any) and every intact pack index
 * beside it, and return it. A chunk listed twice keeps the location it already had. Throws what the write throws.
 */
export function writeConsolidated(packDir: string): ConsolidatedIndex {
  const files = packIndexFiles(packDir).sort();
  const current = readConsolidated(packDir, files);
  const entries = new Map<string, ChunkLocation>(); // only the packs not yet covered: the rest is copied as bytes
  const packs: string[] = [];
  for (const f of files) {
    const pack = f.slice(0, -4);
    if (current?.covers(pack) || !consolidatable(pack)) continue;
    const idx = readPackIndex(path.join(packDir, f));
    if (!idx || idx.pack !== pack) continue; // torn (ignored, as everywhere) or misnamed (read one by one)
    packs.push(pack);
    for (const e of idx.entries) if (!entries.has(e[0])) entries.set(e[0], entryLocation(pack, e));
  }
  const bytes = encodeConsolidated(packs, entries, current);
  writeFileAtomic(path.join(packDir, CONSOLIDATED_FILE), bytes);
  return ConsolidatedIndex.decode(bytes)!;
}
