// The store's chunk index: every chunk hash an intact pack index lists, mapped to where it lives. Torn packs (no
// intact index) are not in it. It may start partial (seeded from one checkpoint's location index, so a restore reads
// no pack index); the first lookup it cannot answer then reads every pack index, so answers never depend on that.
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { type ChunkLocation, entryLocation, readPackIndex } from './pack-index.js';

/** Chunk hash -> location, loaded from the pack indexes of one pack folder (all of them, or seeded and lazily). */
export class ChunkIndex {
  private readonly locations = new Map<string, ChunkLocation>();
  private readonly loaded = new Set<string>();
  private complete = false;
  /** Locations came from a location index since the last reload (dropSeeds can fall back to the pack indexes). */
  private seeded = false;

  constructor(private readonly packDir: string) {}

  /** An index of exactly `entries`, which never reads a pack index (verify reads a location index through it). */
  static only(packDir: string, entries: Iterable<[string, ChunkLocation]>): ChunkIndex {
    const index = new ChunkIndex(packDir);
    index.seed(entries);
    index.complete = true;
    index.seeded = false; // verify reads through exactly these: no fallback
    return index;
  }

  /** Whether every pack index has been read (else only seeded locations, plus whatever a miss loaded). */
  get isComplete(): boolean {
    return this.complete;
  }

  /** Read the index files not read yet (cheap: packs are immutable, so only new index files matter). */
  load(): void {
    for (const f of readdirSync(this.packDir)) {
      if (!f.endsWith('.idx') || this.loaded.has(f)) continue;
      const idx = readPackIndex(path.join(this.packDir, f));
      if (!idx) continue;
      this.loaded.add(f);
      for (const e of idx.entries) this.locations.set(e[0], entryLocation(idx.pack, e));
    }
    this.complete = true;
  }

  /** Pick up packs committed since: new index files if the index is complete; nothing yet if it is still partial. */
  refresh(): void {
    if (this.complete) this.load();
  }

  /** Forget everything and read every index again (after gc rewrote packs). */
  reload(): void {
    this.locations.clear();
    this.loaded.clear();
    this.seeded = false;
    this.load();
  }

  /** After a read through a seeded location failed: forget the seeds, read every pack index; false if none were seeded. */
  dropSeeds(): boolean {
    if (!this.seeded) return false;
    this.reload();
    return true;
  }

  /** Add locations read from a checkpoint's location index (they name sealed packs, as the pack indexes do). */
  seed(entries: Iterable<[string, ChunkLocation]>): void {
    for (const [h, loc] of entries) if (!this.locations.has(h)) this.locations.set(h, loc);
    this.seeded = true;
  }

  /** Whether an intact index lists chunk `h`. */
  has(h: string): boolean {
    return this.locate(h) !== undefined;
  }

  /** Where chunk `h` is kept, if an intact index lists it (a miss on a partial index reads every pack index first). */
  locate(h: string): ChunkLocation | undefined {
    const loc = this.locations.get(h);
    if (loc !== undefined || this.complete) return loc;
    this.load();
    return this.locations.get(h);
  }

  /** Listed, and so is its base if it is a delta: everything a read of `h` needs is indexed. */
  present(h: string): boolean {
    const loc = this.locate(h);
    return loc !== undefined && (loc.base === undefined || this.has(loc.base));
  }

  /** Add the locations of a pack just sealed. */
  add(entries: Iterable<[string, ChunkLocation]>): void {
    for (const [h, loc] of entries) this.locations.set(h, loc);
  }
}
