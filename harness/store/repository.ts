// The content-addressed checkpoint store: SHA-256 chunks in packs, a checkpoint visible only once its manifest is
// committed. Opens the folder, lists checkpoints, and hands out writers and readers.
import { mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { ChunkIndex } from './chunk-index.js';
import { readChunkList } from './chunk-list.js';
import type { PageKeys } from './chunking/qemu-pages.js';
import { DeltaBases } from './delta-bases.js';
import { StoreLock } from './lock.js';
import { type Manifest, parseManifest } from './manifest.js';
import type { Compression } from './pack.js';
import type { ChunkLocation } from './pack-index.js';
import { PackReader } from './pack-reader.js';
import { manifestFiles, storePaths } from './paths.js';
import { CheckpointReader } from './reader.js';
import type { StoreInternals } from './internals.js';
import { CheckpointWriter } from './writer.js';

/** How a store writes new chunks. */
export interface StoreOptions {
  compression?: Compression;
  /** Store a changed page as a delta against its previous version when that pays (default true; false: pages whole). */
  deltas?: boolean;
}

/** An open store directory. One writer at a time (the session host); any number of readers. */
export class Store {
  /** For the writer and gc only: the store's folders, chunk index, pack reads and delta bases. */
  readonly internals: StoreInternals;
  private lock: StoreLock | null = null;

  private constructor(
    readonly dir: string,
    opts: StoreOptions,
  ) {
    const paths = storePaths(dir);
    const index = new ChunkIndex(paths.packs);
    const packs = new PackReader(dir, paths.packs, index);
    this.internals = {
      paths,
      compression: opts.compression ?? 'deflate',
      deltas: opts.deltas ?? true,
      index,
      packs,
      bases: new DeltaBases(packs, () => this.latest()),
    };
  }

  /** Open (creating if needed) a store and load every intact pack index. Torn packs are ignored. */
  static open(dir: string, opts: StoreOptions = {}): Store {
    const store = new Store(dir, opts);
    for (const sub of [store.internals.paths.packs, store.internals.paths.checkpoints])
      mkdirSync(sub, { recursive: true });
    store.internals.index.load();
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
    this.internals.index.load();
  }

  /** A self-checking manifest with its chunk lists filled in; `broken` says why they could not be. Null: unreadable. */
  private readManifest(f: string): Manifest | null {
    const m = parseManifest(readFileSync(path.join(this.internals.paths.checkpoints, f), 'utf8'));
    if (!m?.chunkList) return m;
    return readChunkList(m, (h) => this.readChunk(h));
  }

  /** Every committed, self-consistent manifest, oldest first (with `broken` set where its chunk list is unreadable). */
  list(): Manifest[] {
    return manifestFiles(this.internals.paths.checkpoints)
      .map((f) => this.readManifest(f))
      .filter((m): m is Manifest => m !== null);
  }

  /** The newest committed checkpoint whose every chunk is present, or null. Reads manifests newest first. */
  latest(): Manifest | null {
    const files = manifestFiles(this.internals.paths.checkpoints);
    const { index } = this.internals;
    for (let i = files.length - 1; i >= 0; i--) {
      const m = this.readManifest(files[i]!);
      if (m && !m.broken && m.parts.every((p) => p.chunks.every((h) => index.present(h)))) return m;
    }
    return null;
  }

  /** Sequence number of the newest manifest file (valid or not), 0 when there is none. */
  lastSeq(): number {
    const last = manifestFiles(this.internals.paths.checkpoints).at(-1);
    return last ? Number(last.slice(0, 10)) : 0;
  }

  /**
   * Start writing checkpoint number last+1. Nothing is visible until `commit`. The first call takes the store's
   * writer lock (held until `close`, or until this process dies): one writer or gc at a time.
   */
  begin(step: number): CheckpointWriter {
    this.lock ??= StoreLock.acquire(this.dir, 'writer');
    return new CheckpointWriter(this.internals, this.lastSeq() + 1, step);
  }

  /** Open a committed checkpoint for reading. */
  reader(m: Manifest): CheckpointReader {
    return new CheckpointReader(this.internals.packs, m);
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
   * `newest`: that checkpoint, when the caller has just read it (a host that restored from it).
   */
  warmPageKeys(newest: Manifest | null = this.latest()): void {
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

  /** Close pack files and release the writer lock if this process took it. */
  close(): void {
    this.internals.packs.close();
    this.lock?.release();
    this.lock = null;
  }

  /** After packs were rewritten (gc): forget open pack files and cached blocks, and read every index again. */
  reload(): void {
    this.internals.packs.close();
    this.internals.index.reload();
  }

  /** Run `fn` holding the writer lock (taken here unless this process already holds it); gc runs under it. */
  withLock<T>(purpose: string, fn: () => T): T {
    if (this.lock) return fn();
    const lock = StoreLock.acquire(this.dir, purpose);
    try {
      return fn();
    } finally {
      lock.release();
    }
  }
}
