// Verify the consolidated chunk index (packs/chunks.cix) against the pack indexes it copies: it must parse, every pack
// it covers must have an intact index, and it must list exactly their chunks where they list them. A mismatch is
// reported even though opens would survive it (a wrong location fails its hash check and falls back): it means the
// file was damaged or forged after its checksum, or a pack index changed under it.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { CONSOLIDATED_FILE, ConsolidatedIndex } from './consolidated-index.js';
import { type ChunkLocation, entryLocation, readPackIndex } from './pack-index.js';
import type { StorePaths } from '../paths.js';

/** One way the consolidated index disagrees with the packs: the chunk (empty for the file itself) and why. */
export interface ChunkIndexProblem {
  file: string;
  chunk: string;
  problem: string;
}

/** Problems named one by one per kind before the rest are counted in one line. */
const NAMED = 20;

function key(loc: ChunkLocation): string {
  return `${loc.pack}:${loc.offset}:${loc.length}:${loc.codec}:${loc.inner}:${loc.rawLength}:${loc.base ?? ''}`;
}

/** Check the store's consolidated chunk index (none: nothing to check) against its pack indexes. */
export function verifyChunkIndex(paths: StorePaths): ChunkIndexProblem[] {
  const file = path.join(paths.packs, CONSOLIDATED_FILE);
  if (!existsSync(file)) return [];
  const index = ConsolidatedIndex.decode(readFileSync(file));
  if (!index) return [{ file, chunk: '', problem: `chunk index ${file} is torn or fails its check` }];
  const problems: ChunkIndexProblem[] = [];
  const truth = new Map<string, Set<string>>(); // hash -> every place a covered pack's index lists it
  const baseOf = new Map<string, string | undefined>(); // hash -> its delta base where first listed
  for (const pack of index.packs) {
    const idx = readPackIndex(path.join(paths.packs, `${pack}.idx`));
    if (!idx) {
      problems.push({
        file,
        chunk: '',
        problem: `chunk index ${file} covers pack ${pack}, whose index is missing or damaged`,
      });
      continue;
    }
    for (const e of idx.entries) {
      let places = truth.get(e[0]);
      if (!places) truth.set(e[0], (places = new Set()));
      const loc = entryLocation(pack, e);
      places.add(key(loc));
      if (!baseOf.has(e[0])) baseOf.set(e[0], loc.base);
    }
  }
  const wrong: string[] = [];
  for (const [h, loc] of index.entries()) if (!truth.get(h)?.has(key(loc))) wrong.push(h);
  // A delta whose base no covered pack lists whole is left out on purpose (reading it fails the chunk check anyway).
  const baseless = (h: string): boolean => {
    const base = baseOf.get(h);
    return base !== undefined && (!baseOf.has(base) || baseOf.get(base) !== undefined);
  };
  const missing = [...truth.keys()].filter((h) => !index.has(h) && !baseless(h));
  const report = (hashes: string[], says: string): void => {
    for (const h of hashes.slice(0, NAMED))
      problems.push({ file, chunk: h, problem: `chunk index ${file} ${says} ${h}` });
    if (hashes.length > NAMED)
      problems.push({ file, chunk: '', problem: `chunk index ${file}: ${hashes.length - NAMED} more like that` });
  };
  report(wrong, 'puts a chunk where no pack index it covers does:');
  report(missing, 'misses a chunk a pack index it covers lists:');
  return problems;
}
