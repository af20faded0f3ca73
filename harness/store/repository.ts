// The content-addressed checkpoint store: SHA-256 chunks in packs, a checkpoint visible only once its manifest is
// committed. Opens the folder, lists checkpoints, and hands out writers and readers.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { mkdirDurable } from '../core/durable.js';
import { ChunkIndex } from './index/chunk-index.js';
import { readChunkList } from './chunk-list.js';
import type { PageKeys } from './chunking/qemu-pages.js';
import { DeltaBases } from './delta-bases.js';
import { locationFileName, readLocations, writeLocations } from './index/location-index.js';
import { type LockKind, StoreLock } from './lock.js';
import { inspectManifest, type Manifest } from './manifest.js';
import type { Compression } from './pack.js';
import type { ChunkLocation } from './index/pack-index.js';
import { PackReader } from './read/pack-reader.js';
import { manifestFiles, sharedPacksLink, storePaths } from './paths.js';
import { CheckpointReader } from './read/reader.js';
import { readPool } from './read/read-pool.js';
import type { ChunkCache } from './read/chunk-fetch.js';
import { type WarmChunks, type WarmCounts, warmChunkList, warmParts } from './read/warm-chunks.js';
import type { StoreInternals } from './internals.js';
import { CheckpointWriter } from './writer.js';

/** How a store writes new chunks. */
export interface StoreOptions {
  /** How new chunks are compressed (default `lz4`; a store holds packs of any codec, each block names its own). */
  compression?: Compression;
  /** Store a changed page as a delta against its previous version when that pays (default true; false: pages whole). */
  deltas?: boolean;
  /** The lock held from open to close (default shared: the store's contents are relied on, not rewritten). */
  lock?: Exclude<LockKind, 'writer'>;
  /** Who holds it, for the message of a process the lock turns away (default "reader"). */
  purpose?: string;
}

/** A manifest file that was not used, and why (it fails its check, or its checkpoint is incomplete). */
export interface SkippedManifest {
  file: string;
  problem: string;
}

/** The newest complete checkpoint (null: none) and every newer manifest file passed over, with the reason. */
export interface Newest {
  manifest: Manifest | null;
  skipped: SkippedManifest[];
}

/** Every manifest file: those that pass their check (oldest first) and those that do not, by name. */
export interface ManifestScan {
  manifests: Manifest[];
  damaged: SkippedManifest[];
}

/**
 * An open store directory, locked from open to close (lock.ts): any number of readers and restorers, one writer of
 * checkpoints at a time, and gc alone.
 */
export class Store {
  /** For the writer and gc only: the store's folders, chunk index, pack reads and delta bases. */
  readonly internals: StoreInternals;
  private readonly locks: StoreLock[] = [];
  /** newest() results this store gave, with the manifest files they covered (count, newest name); reload() forgets. */
  private resolved = new WeakMap<Newest, { count: number; top: string | undefined }>();
  /** packs/ is shared with other stores (paths.ts sharedPacksLink): their writers add chunks while this one is open. */
  private readonly sharedPacks: boolean;

  private constructor(
    readonly dir: string,
    opts: StoreOptions,
  ) {
    const paths = storePaths(dir);
    const index = new ChunkIndex(paths.packs);
    const packs = new PackReader(dir, paths.packs, index);
    this.internals = {
      paths,
      compression: opts.compression ?? 'lz4',
      deltas: opts.deltas ?? true,
      index,
      packs,
      bases: new DeltaBases(packs, () => this.latest()),
    };
    this.sharedPacks = sharedPacksLink(paths.packs) !== null;
  }

  /**
   * Open (creating if needed) a store and take its lock (StoreBusyError, exit 3, when a live process holds a
   * conflicting one). No pack index is read yet: newest() reads the newest checkpoint's location index, and the
   * first lookup that misses reads every intact pack index (torn packs are ignored).
   */
  static open(dir: string, opts: StoreOptions = {}): Store {
    const store = new Store(dir, opts);
    // durably: a folder whose parent was never fsynced vanishes in a power loss, with every checkpoint in it
    for (const sub of [store.internals.paths.packs, store.internals.paths.checkpoints]) mkdirDurable(sub);
    store.locks.push(StoreLock.acquire(dir, opts.lock ?? 'shared', opts.purpose ?? 'reader'));
    return store;
  }

  /** How new chunks are kept. */
  get compression(): Compression {
    return this.internals.compression;
  }

  /** Whether changed pages may be stored as deltas. */
  get deltas(): boolean {
    return this.internals.deltas;
  }

  /** Pick up packs another process committed since this store was opened (cheap: only new index files are read). */
  refresh(): void {
    this.internals.index.refresh();
  }

  /** Manifest file `f` self-checked, with its chunk lists filled in (`broken` says why they could not be). */
  private readManifest(f: string): Manifest | SkippedManifest {
    const file = path.join(this.internals.paths.checkpoints, f);
    const m = inspectManifest(readFileSync(file, 'utf8'));
    if ('problem' in m) return { file, problem: `manifest ${file} ${m.problem}` };
    if (m.seq !== Number(f.slice(0, 10)))
      return { file, problem: `manifest ${file} says it is checkpoint ${m.seq}, its file name says otherwise` };
    if (!m.chunkList) return m;
    return readChunkList(m, (h) => this.readChunk(h));
  }

  /** Every manifest file: the ones that pass their check, oldest first, and the ones that do not, named. */
  scan(): ManifestScan {
    const manifests: Manifest[] = [];
    const damaged: SkippedManifest[] = [];
    for (const f of manifestFiles(this.internals.paths.checkpoints)) {
      const m = this.readManifest(f);
      if ('problem' in m) damaged.push(m);
      else manifests.push(m);
    }
    return { manifests, damaged };
  }

  /** The manifests that pass their check, oldest first (`broken` set where a chunk list is unreadable); scan() also names the others. */
  list(): Manifest[] {
    return this.scan().manifests;
  }

  /**
   * The newest committed checkpoint whose every chunk is present (null: none), and every newer manifest file it
   * passed over with the reason. Reads manifests newest first. `since`: an earlier result of this store's newest()
   * that passed nothing over: only manifest files newer than it are read, and if none is complete the answer is
   * `since`'s. The same answer as a full read while this store holds its lock: no gc runs, committed manifests are
   * never rewritten, one writer at a time numbers them upwards, and chunks are only added (a store reopened after a
   * power loss is a new Store, and reload() forgets every result). Anything else (a file at or below `since`'s newest
   * appeared or went) reads them all.
   */
  newest(since?: Newest): Newest {
    const files = manifestFiles(this.internals.paths.checkpoints);
    const prior = since === undefined ? undefined : this.resolved.get(since);
    const from =
      since && prior && since.skipped.length === 0 && prior.count > 0 && files[prior.count - 1] === prior.top
        ? prior.count
        : 0;
    const found = this.resolveNewest(files, from);
    const out = found.manifest === null && from > 0 ? { manifest: since!.manifest, skipped: found.skipped } : found;
    this.resolved.set(out, { count: files.length, top: files.at(-1) });
    return out;
  }

  /** The newest complete checkpoint among manifest files `files[from..]`, newest first, and what it passed over. */
  private resolveNewest(files: string[], from: number): Newest {
    const { index, paths } = this.internals;
    const skipped: SkippedManifest[] = [];
    for (let i = files.length - 1; i >= from; i--) {
      const seq = Number(files[i]!.slice(0, 10));
      const tried = !index.isComplete;
      const seeded = tried ? readLocations(paths.checkpoints, seq) : null;
      if (seeded) index.seed(seeded);
      const m = this.readManifest(files[i]!);
      if ('problem' in m) skipped.push(m);
      else if (m.broken) skipped.push({ file: path.join(paths.checkpoints, files[i]!), problem: m.broken });
      else {
        const missing = m.parts.reduce((n, p) => n + p.chunks.filter((h) => !index.present(h)).length, 0);
        if (missing === 0) {
          // missing or damaged (the pack indexes were read instead): write it again for the next open
          if (tried ? !seeded : !existsSync(path.join(paths.checkpoints, locationFileName(seq))))
            this.rebuildLocations(m);
          return { manifest: m, skipped };
        }
        const file = path.join(paths.checkpoints, files[i]!);
        skipped.push({ file, problem: `checkpoint ${m.seq} lacks ${missing} of its chunks` });
      }
    }
    return { manifest: null, skipped };
  }

  /** Write `m`'s location index again; best effort (it is a cache: a read-only or full disk only costs speed). */
  private rebuildLocations(m: Manifest): void {
    try {
      writeLocations(this.internals.paths.checkpoints, m, (h) => this.internals.index.locate(h));
    } catch {
      // the next open reads the pack indexes again
    }
  }

  /** The newest committed checkpoint whose every chunk is present, or null (newest() also says what it passed over). */
  latest(): Manifest | null {
    return this.newest().manifest;
  }

  /** Sequence number of the newest manifest file (valid or not), 0 when there is none. */
  lastSeq(): number {
    const last = manifestFiles(this.internals.paths.checkpoints).at(-1);
    return last ? Number(last.slice(0, 10)) : 0;
  }

  /**
   * Start writing checkpoint number last+1. Nothing is visible until `commit`. The first call takes the store's
   * writer lock (held until `close`, or until this process dies): one writer at a time, never beside gc.
   */
  begin(step: number): CheckpointWriter {
    if (!this.locks.some((l) => l.kind !== 'shared'))
      this.locks.push(StoreLock.acquire(this.dir, 'writer', 'checkpoint writer', undefined, this.locks));
    // packs others sealed since: their chunks are not written again (cross-session dedup; cheap, new index files only)
    if (this.sharedPacks) this.refresh();
    return new CheckpointWriter(this.internals, this.lastSeq() + 1, step);
  }

  /** Open a committed checkpoint for reading (`cache`: checked chunks held in memory, served instead of read). */
  reader(m: Manifest, cache?: ChunkCache): CheckpointReader {
    return new CheckpointReader(this.internals.packs, m, cache);
  }

  /** Make `warm` hold the chunks of `m`'s warmParts, fetching only those it lacks (warm-chunks.ts). */
  warm(m: Manifest, warm: WarmChunks): Promise<WarmCounts> {
    const bytes = warmParts(m).reduce((n, p) => n + p.size, 0);
    return warm.keep(this.internals.packs, readPool(bytes), warmChunkList(m));
  }

  /**
   * The writer's delta bases for part `name`: its page keys in the newest checkpoint (what this process last
   * committed, else rebuilt once from latest() after a restart); empty when there is none or it cannot be read.
   */
  previousPages(name: string): PageKeys {
    return this.internals.bases.previous(name);
  }

  /**
   * Rebuild the delta bases of every page-split part of the newest checkpoint now (tens of ms for a big guest), so
   * the first checkpoint after a restart does not do it while it writes (inside the pause, with inline RAM ingest).
   * `newest`: that checkpoint, when the caller has just read it (a host that restored from it). Loads the whole
   * chunk index first (a restore read only the checkpoint's location index), so the writer dedups against every
   * chunk: the consolidated index plus the pack indexes it does not cover, not every pack index.
   */
  warmPageKeys(newest: Manifest | null = this.latest()): void {
    this.internals.index.load();
    this.internals.bases.warm(newest);
  }

  /** Where a chunk is kept, if any intact index lists it. */
  locate(h: string): ChunkLocation | undefined {
    return this.internals.index.locate(h);
  }

  /** Read one chunk (rebuilt from its base if it is a delta), check its hash. Throws IntegrityError on a missing or corrupt chunk. */
  readChunk(h: string): Buffer {
    return this.internals.packs.readChunk(h);
  }

  /** Bytes on disk: packs (including torn ones) plus manifests. */
  diskBytes(): number {
    let total = 0;
    for (const sub of [this.internals.paths.packs, this.internals.paths.checkpoints]) {
      for (const f of readdirSync(sub)) total += statSync(path.join(sub, f)).size;
    }
    return total;
  }

  /** Close pack files and release this store's locks. */
  close(): void {
    this.internals.packs.close();
    for (const l of this.locks.splice(0)) l.release();
  }

  /**
   * After packs were rewritten (gc): forget open pack files and cached blocks, and read every index again
   * (`packIndexesOnly`: every pack index, not the consolidated chunk index).
   */
  reload(packIndexesOnly = false): void {
    this.resolved = new WeakMap();
    this.internals.packs.close();
    this.internals.index.reload(packIndexesOnly);
  }

  /** Run `fn` holding an exclusive lock (taken here unless this store was opened with one); gc runs under it. */
  exclusively<T>(purpose: string, fn: () => T): T {
    if (this.locks.some((l) => l.kind === 'exclusive')) return fn();
    const lock = StoreLock.acquire(this.dir, 'exclusive', purpose, 0, this.locks);
    try {
      return fn();
    } finally {
      lock.release();
    }
  }
}
