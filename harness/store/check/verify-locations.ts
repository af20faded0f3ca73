// Verify the location indexes (location-index.ts): each must parse, and every chunk it locates where no pack index
// does must read back from there with its hash (a delta through the base it names), or a restore that trusts it would
// fail. A chunk located where a pack index locates it is the main verify's to check (reported once, there).
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { IntegrityError } from '../../core/errors.js';
import { ChunkIndex } from '../index/chunk-index.js';
import { LOCATION_FILE, readLocations } from '../index/location-index.js';
import { PackReader } from '../read/pack-reader.js';
import type { StorePaths } from '../paths.js';

/** One location index that fails: its checkpoint, file, the chunk (empty when the file itself is damaged) and why. */
export interface LocationProblem {
  seq: number;
  file: string;
  chunk: string;
  problem: string;
}

/** Check every location index in the store against `index` (every pack index read). */
export function verifyLocations(paths: StorePaths, index: ChunkIndex): LocationProblem[] {
  const problems: LocationProblem[] = [];
  for (const f of readdirSync(paths.checkpoints).filter((x) => LOCATION_FILE.test(x))) {
    const seq = Number(f.slice(0, 10));
    const file = path.join(paths.checkpoints, f);
    const entries = readLocations(paths.checkpoints, seq);
    if (!entries) {
      problems.push({ seq, file, chunk: '', problem: `location index ${file} is torn or fails its check` });
      continue;
    }
    const packs = new PackReader(paths.root, paths.packs, ChunkIndex.only(paths.packs, entries));
    try {
      for (const [h, loc] of entries) {
        const listed = index.locate(h);
        if (listed?.pack === loc.pack && listed.offset === loc.offset && listed.inner === loc.inner) continue;
        try {
          packs.readChunk(h);
        } catch (err) {
          if (!(err instanceof IntegrityError)) throw err;
          problems.push({ seq, file, chunk: h, problem: `location index ${file}: ${err.message}` });
        }
      }
    } finally {
      packs.close();
    }
  }
  return problems;
}
