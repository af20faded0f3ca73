// The stored bytes sets of checkpoints need: every chunk their parts and chunk lists name, and the base of each delta
// among them, at its stored (compressed) size; a chunk that shares a compressed block with others at its share of the
// block (its raw length over the block's), so a set that needs one chunk of a block is not charged the whole block.
// For the stores of a multi-session run (run/sessions.ts), each session's sum is what a store of its own would hold,
// beside the bytes their one shared packs folder holds: the cross-session dedup, measured rather than assumed.
import path from 'node:path';
import { packIndexFiles } from '../index/consolidate.js';
import { entryLocation, readPackIndex } from '../index/pack-index.js';
import type { Manifest } from '../manifest.js';

/** A chunk's stored share and its base (a delta's). */
interface Stored {
  bytes: number;
  base: string | undefined;
}

/** Every chunk the intact pack indexes of `packDir` list, at its share of its block (the first copy of a chunk). */
function storedShares(packDir: string): Map<string, Stored> {
  const entries: { h: string; block: string; length: number; raw: number; base: string | undefined }[] = [];
  const blockRaw = new Map<string, number>();
  for (const f of packIndexFiles(packDir)) {
    const idx = readPackIndex(path.join(packDir, f));
    for (const e of idx?.entries ?? []) {
      const loc = entryLocation(idx!.pack, e);
      const block = `${loc.pack}:${loc.offset}`;
      entries.push({ h: e[0], block, length: loc.length, raw: loc.rawLength, base: loc.base });
      blockRaw.set(block, (blockRaw.get(block) ?? 0) + loc.rawLength);
    }
  }
  const shares = new Map<string, Stored>();
  for (const e of entries) {
    const total = blockRaw.get(e.block)!;
    if (!shares.has(e.h)) shares.set(e.h, { bytes: total > 0 ? (e.length * e.raw) / total : e.length, base: e.base });
  }
  return shares;
}

/** For each set of manifests (one store's), the stored bytes of the distinct chunks it needs (unlisted chunks: 0). */
export function neededBytes(packDir: string, sets: readonly (readonly Manifest[])[]): number[] {
  const shares = storedShares(packDir);
  return sets.map((manifests) => {
    const seen = new Set<string>();
    let bytes = 0;
    const need = (h: string): void => {
      for (let next: string | undefined = h; next !== undefined && !seen.has(next);) {
        seen.add(next);
        const s = shares.get(next);
        bytes += s?.bytes ?? 0;
        next = s?.base;
      }
    };
    for (const m of manifests) {
      for (const p of m.parts) p.chunks.forEach(need);
      (m.listChunks ?? m.chunkList ?? []).forEach(need);
    }
    return Math.round(bytes);
  });
}
