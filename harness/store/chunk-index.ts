// The store's chunk index: every chunk hash an intact pack index lists, mapped to where it lives. Torn packs (no
// intact index) are not in it.
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { type ChunkLocation, entryLocation, readPackIndex } from './pack-index.js';

/** Chunk hash -> location, loaded from the pack indexes of one pack folder. */
export class ChunkIndex {
  private readonly locations = new Map<string, ChunkLocation>();
  private readonly loaded = new Set<string>();

  constructor(private readonly packDir: string) {}

  /** Read the index files not read yet (cheap: packs are immutable, so only new index files matter). */
  load(): void {
    for (const f of readdirSync(this.packDir)) {
      if (!f.endsWith('.idx') || this.loaded.has(f)) continue;
      const idx = readPackIndex(path.join(this.packDir, f));
      if (!idx) continue;
      this.loaded.add(f);
      for (const e of idx.entries) this.locations.set(e[0], entryLocation(idx.pack, e));
    }
  }

  /** Forget everything and read every index again (after gc rewrote packs). */
  reload(): void {
    this.locations.clear();
    this.loaded.clear();
    this.load();
  }

  /** Whether an intact index lists chunk `h`. */
  has(h: string): boolean {
    return this.locations.has(h);
  }

  /** Where chunk `h` is kept, if an intact index lists it. */
  locate(h: string): ChunkLocation | undefined {
    return this.locations.get(h);
  }

  /** Listed, and so is its base if it is a delta: everything a read of `h` needs is indexed. */
  present(h: string): boolean {
    const loc = this.locations.get(h);
    return loc !== undefined && (loc.base === undefined || this.locations.has(loc.base));
  }

  /** Add the locations of a pack just sealed. */
  add(entries: Iterable<[string, ChunkLocation]>): void {
    for (const [h, loc] of entries) this.locations.set(h, loc);
  }
}
