// Every pack index in packs/ checked whole: a reader passes over a damaged one (its pack counts as torn), but gc must
// not plan without it and verify must name it.
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { loadPackIndex } from './pack-index.js';

/** A pack index that cannot be used: its file and why. */
export interface PackIndexProblem {
  file: string;
  problem: string;
}

/** The damaged pack indexes in `packDir` (an index is written whole, by rename: one that fails was damaged after). */
export function damagedPackIndexes(packDir: string): PackIndexProblem[] {
  const out: PackIndexProblem[] = [];
  for (const f of readdirSync(packDir)
    .filter((x) => x.endsWith('.idx'))
    .sort()) {
    const file = path.join(packDir, f);
    const r = loadPackIndex(file);
    if (typeof r === 'string') out.push({ file, problem: `pack index ${file} ${r}` });
  }
  return out;
}
