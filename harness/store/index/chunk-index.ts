// The store's chunk index: every chunk hash an intact pack index lists, mapped to where it lives. Torn packs (no
// intact index) are not in it. Loading it reads the consolidated index (consolidated-index.ts: one sorted file for
// most packs, searched in place) and then only the pack indexes it does not cover. It may start partial (seeded from
// one checkpoint's location index, so a restore reads no pack index); the first lookup it cannot answer then loads
// the rest, so answers never depend on that.
import path from 'node:path';
import type { ConsolidatedIndex } from './consolidated-index.js';
import {
  CONSOLIDATE_AFTER_CHUNKS,
  CONSOLIDATE_AFTER_PACKS,
  packIndexFiles,
  readConsolidated,
  writeConsolidated,
} from './consolidate.js';
import { type ChunkLocation, entryLocation, readPackIndex } from './pack-index.js';

/** Chunk hash -> location, loaded from the pack indexes of one pack folder (all of them, or seeded and lazily). */
export class ChunkIndex {
  /** Locations read one by one (pack indexes the consolidated index does not cover, seeds, packs just sealed). */
  private readonly locations = new Map<string, ChunkLocation>();
  private readonly loaded = new Set<string>();
  private complete = false;
  /** Locations came from a location index since the last reload (dropSeeds can fall back to the pack indexes). */
  private seeded = false;
  /** The consolidated index in use (null: none, not read yet, or not trusted). */
  private consolidated: ConsolidatedIndex | null = null;
  /** Whether to read the consolidated index at the next load (false once a read through it failed, or for only()). */
  private useConsolidated = true;
  /** Packs and chunks held one by one: past a bound, the writer writes a new consolidated index. */
  private loosePacks = 0;
  private looseChunks = 0;

  constructor(private readonly packDir: string) {}

  /** An index of exactly `entries`, which never reads a pack index (verify reads a location index through it). */
  static only(packDir: string, entries: Iterable<[string, ChunkLocation]>): ChunkIndex {
    const index = new ChunkIndex(packDir);
    index.useConsolidated = false;
    index.seed(entries);
    index.complete = true;
    index.seeded = false; // verify reads through exactly these: no fallback
    return index;
  }

  /** Whether every pack index has been read (else only seeded locations, plus whatever a miss loaded). */
  get isComplete(): boolean {
    return this.complete;
  }

  /** Whether lookups go through a consolidated index (false: the pack indexes were read one by one). */
  get usesConsolidated(): boolean {
    return this.consolidated !== null;
  }

  /** Read what is not read yet: the consolidated index once, then the pack indexes it does not cover (new ones only). */
  load(): void {
    const files = packIndexFiles(this.packDir);
    if (this.useConsolidated && this.consolidated === null && this.loaded.size === 0)
      this.consolidated = readConsolidated(this.packDir, files);
    for (const f of files) {
      if (this.loaded.has(f) || this.consolidated?.covers(f.slice(0, -4))) continue;
      const idx = readPackIndex(path.join(this.packDir, f));
      if (!idx) continue;
      this.loaded.add(f);
      this.loosePacks++;
      this.looseChunks += idx.entries.length;
      for (const e of idx.entries) this.locations.set(e[0], entryLocation(idx.pack, e));
    }
    this.complete = true;
  }

  /** Pick up packs committed since: new index files if the index is complete; nothing yet if it is still partial. */
  refresh(): void {
    if (this.complete) this.load();
  }

  /**
   * Forget everything and read every index again (after gc rewrote packs). `packIndexesOnly`: not through the
   * consolidated index (gc plans from the pack indexes themselves: one that is damaged hides its pack).
   */
  reload(packIndexesOnly = false): void {
    this.useConsolidated = !packIndexesOnly;
    this.reset();
  }

  private reset(): void {
    this.locations.clear();
    this.loaded.clear();
    this.consolidated = null;
    this.seeded = false;
    this.loosePacks = this.looseChunks = 0;
    this.load();
  }

  /**
   * After a read through a seeded location or the consolidated index failed: forget both and read every pack index
   * (the consolidated index stays unused in this process); false if neither was in use.
   */
  dropSeeds(): boolean {
    if (!this.seeded && this.consolidated === null) return false;
    this.useConsolidated = false;
    this.reset();
    return true;
  }

  /** Add locations read from a checkpoint's location index (they name sealed packs, as the pack indexes do). */
  seed(entries: Iterable<[string, ChunkLocation]>): void {
    for (const [h, loc] of entries) if (!this.locations.has(h)) this.locations.set(h, loc);
    this.seeded = true;
  }

  /** Whether an intact index lists chunk `h`. */
  has(h: string): boolean {
    if (this.locations.has(h) || this.consolidated?.has(h)) return true;
    if (this.complete) return false;
    this.load();
    return this.locations.has(h) || this.consolidated?.has(h) === true;
  }

  /** Where chunk `h` is kept, if an intact index lists it (a miss on a partial index reads every pack index first). */
  locate(h: string): ChunkLocation | undefined {
    const loc = this.locations.get(h) ?? this.consolidated?.locate(h);
    if (loc !== undefined || this.complete) return loc;
    this.load();
    return this.locations.get(h) ?? this.consolidated?.locate(h);
  }

  /** Listed, and so is its base if it is a delta: everything a read of `h` needs is indexed. */
  present(h: string): boolean {
    const loc = this.locate(h);
    return loc !== undefined && (loc.base === undefined || this.has(loc.base));
  }

  /** Add the locations of a pack just sealed. */
  add(entries: Iterable<[string, ChunkLocation]>): void {
    this.loosePacks++;
    for (const [h, loc] of entries) {
      this.locations.set(h, loc);
      this.looseChunks++;
    }
  }

  /**
   * Once enough packs are held one by one (a writer calls this after each commit, off the restore path): write a
   * new consolidated index and use it. Best effort: a failed write (full disk) leaves the pack indexes in charge.
   */
  consolidateIfDue(): void {
    if (!this.complete || !this.useConsolidated) return;
    if (this.loosePacks < CONSOLIDATE_AFTER_PACKS && this.looseChunks < CONSOLIDATE_AFTER_CHUNKS) return;
    let written: ConsolidatedIndex;
    try {
      written = writeConsolidated(this.packDir);
    } catch (err) {
      if (typeof (err as { code?: unknown } | null)?.code === 'string') return; // a system error: try again later
      throw err;
    }
    if (!this.seeded) this.locations.clear();
    this.loaded.clear();
    this.consolidated = written;
    this.loosePacks = this.looseChunks = 0;
    this.load();
  }
}
