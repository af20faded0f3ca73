// Write side of one checkpoint: chunks are hashed, deduplicated against the store and this checkpoint, and appended
// to a new pack; commit seals the pack and then renames the manifest into place.
import { createHash } from 'node:crypto';
import path from 'node:path';
import { writeFileAtomic } from '../core/durable.js';
import { writeChunkList } from './chunk-list.js';
import { encodeDelta } from './chunking/delta.js';
import { CdcCutter, type Cutter, FixedCutter } from './chunking/ingest.js';
import { type PageKeys, PagesCutter } from './chunking/qemu-pages.js';
import { DeltaPolicy } from './delta-policy.js';
import { dropOldLocations, writeLocations } from './index/location-index.js';
import {
  type Manifest,
  MANIFEST_SCHEMA_VERSION,
  manifestFileName,
  type PartEntry,
  serializeManifest,
} from './manifest.js';
import { PackWriter } from './pack.js';
import { readAhead } from './read-ahead.js';
import type { StoreInternals } from './internals.js';
import { chunkName, sha256 } from './sha256.js';
import type { CheckpointSink, PartData, PutOptions } from './types.js';

/** One checkpoint being written; nothing is visible to readers until `commit`. */
export class CheckpointWriter implements CheckpointSink {
  private readonly pack: PackWriter;
  private readonly pending = new Set<string>();
  private readonly deltaPolicy = new DeltaPolicy();
  private readonly parts: PartEntry[] = [];
  /** Page keys of this checkpoint's page-split parts: the store's delta bases once it is committed. */
  private readonly pageKeys = new Map<string, PageKeys>();
  private chunkCount = 0;
  private committed = false;

  constructor(
    private readonly store: StoreInternals,
    readonly seq: number,
    public step: number,
  ) {
    this.pack = new PackWriter(store.paths.packs, store.compression);
  }

  /** Hash one chunk; keep it unless the store or this checkpoint already has it (as a delta against `base` if that pays). */
  private addChunk(chunk: Uint8Array, into: string[], base?: string): void {
    const h = chunkName(chunk);
    if (!this.store.index.has(h) && !this.pending.has(h)) {
      this.pending.add(h);
      const delta =
        base !== undefined && this.store.deltas && this.deltaPolicy.shouldTry() ? this.delta(chunk, base) : null;
      if (delta) this.pack.add(h, delta.stored, delta.base);
      else this.pack.add(h, chunk);
    }
    into.push(h);
    this.chunkCount++;
  }

  /**
   * `chunk` as a delta against `hint`'s whole base (a committed chunk stored whole), or null when that does not pay.
   * The base is hash-checked only once the delta pays (never build on a corrupt base): checking every base first
   * slows the first checkpoint after a fresh boot, where nearly every page differs from its predecessor.
   */
  private delta(chunk: Uint8Array, hint: string): { stored: Buffer; base: string } | null {
    const base = this.store.index.locate(hint)?.base ?? hint;
    const baseBytes = this.store.packs.readWholeUnchecked(base);
    if (baseBytes === null || baseBytes.length !== chunk.length) return null;
    const stored = encodeDelta(chunk, baseBytes);
    const paid = stored !== null && sha256(baseBytes) === base;
    this.deltaPolicy.tried(paid);
    return paid ? { stored, base } : null;
  }

  private cutter(entry: PartEntry, opts: PutOptions): Cutter {
    const emit = (chunk: Uint8Array): void => this.addChunk(chunk, entry.chunks);
    switch (opts.chunking ?? 'fixed') {
      case 'fixed':
        return new FixedCutter(emit);
      case 'cdc':
        return new CdcCutter(emit);
      case 'qemu-pages':
        return new PagesCutter(
          entry,
          (chunk, into, base) => this.addChunk(chunk, into, base),
          this.store.bases.previous(entry.name),
        );
    }
  }

  /** Store one named part, cut as `opts.chunking` says. */
  async put(name: string, data: PartData, opts: PutOptions = {}): Promise<void> {
    if (this.parts.some((p) => p.name === name))
      throw new Error(`checkpoint ${this.seq}: part "${name}" written twice`);
    const entry: PartEntry = { name, size: 0, chunks: [] };
    const cutter = this.cutter(entry, opts);
    // The whole part's digest, from the very bytes the cutter sees (readers check a rebuilt part against it).
    const whole = createHash('sha256');
    if (data instanceof Uint8Array) {
      whole.update(data);
      cutter.push(data);
      entry.size = data.length;
    } else {
      for await (const piece of data) {
        whole.update(piece);
        cutter.push(piece);
        entry.size += piece.length;
      }
    }
    cutter.end();
    entry.sha256 = whole.digest('hex');
    if (cutter instanceof PagesCutter) this.pageKeys.set(name, cutter.pageKeys);
    this.parts.push(entry);
  }

  /** Store one named file from disk, read ahead while it is hashed. */
  async putFile(name: string, file: string, opts: PutOptions = {}): Promise<void> {
    await this.put(name, readAhead(file), opts);
  }

  /** Make the checkpoint durable and visible: pack data, pack index, then the manifest (temp, fsync, rename, dir fsync). */
  commit(meta: Record<string, number | string> = {}): Manifest {
    if (this.committed) throw new Error(`checkpoint ${this.seq} committed twice`);
    // The chunk lists go into the pack like data (they dedup against the previous checkpoint's), before it is sealed.
    const newDataChunks = this.pack.count;
    const newDeltas = this.pack.deltas;
    const { top: chunkList, leaves } = writeChunkList(this.parts, (chunk, into) => this.addChunk(chunk, into));
    this.chunkCount -= leaves.length + chunkList.length; // `chunks` counts the parts' chunks
    const idxBytes = this.pack.seal();
    const packBytes = this.pack.bytes;
    const { file, text } = serializeManifest({
      schemaVersion: MANIFEST_SCHEMA_VERSION,
      seq: this.seq,
      step: this.step,
      createdAt: new Date().toISOString(),
      parts: this.parts.map(({ chunks, ...p }) => ({ ...p, count: chunks.length })),
      logicalBytes: this.parts.reduce((s, p) => s + p.size, 0),
      storedBytes: packBytes + idxBytes,
      chunks: this.chunkCount,
      newChunks: newDataChunks,
      newDeltas,
      meta,
      chunkList,
    });
    const manifest: Manifest = { ...file, parts: this.parts, listChunks: [...chunkList, ...leaves] };
    this.store.index.add(this.pack.locations());
    // Its location index first (a restore then reads no pack index); a crash between the two leaves a cache file
    // whose manifest never appeared, which nothing reads.
    const { checkpoints } = this.store.paths;
    writeLocations(checkpoints, manifest, (h) => this.store.index.locate(h));
    writeFileAtomic(path.join(checkpoints, manifestFileName(this.seq)), text);
    dropOldLocations(checkpoints, this.seq);
    this.store.index.consolidateIfDue(); // every so many packs, once the checkpoint is visible
    for (const [name, keys] of this.pageKeys) this.store.bases.set(name, keys);
    this.committed = true;
    return manifest;
  }

  /** Give up on this checkpoint: close its unsealed pack (a later gc removes the file). */
  abandon(): void {
    this.pack.abandon();
  }
}
