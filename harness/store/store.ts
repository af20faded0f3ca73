// The content-addressed checkpoint store: SHA-256 chunks in packs, a checkpoint visible only once its manifest is committed.
import { hash } from 'node:crypto';
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  statSync,
  writeSync,
} from 'node:fs';
import { open } from 'node:fs/promises';
import path from 'node:path';
import { inflateRawSync } from 'node:zlib';
import { IntegrityError } from '../core/errors.js';
import { writeFileAtomic } from '../core/durable.js';
import { applyDelta, encodeDelta } from './chunking/delta.js';
import { CdcCutter, type Cutter, FixedCutter } from './chunking/ingest.js';
import {
  decodeChunkList,
  decodeHashes,
  encodeChunkList,
  encodeHashes,
  LIST_LEAF_EVERY,
  LIST_TOP_EVERY,
  MANIFEST_SCHEMA_VERSION,
  splitHashList,
  manifestFileName,
  parseManifest,
  serializeManifest,
  type Manifest,
  type PartEntry,
  type StoredPart,
} from './manifest.js';
import { type ChunkLocation, type Compression, entryLocation, PackWriter, readPackIndex } from './pack.js';
import { PageKeys, PagesCutter } from './chunking/qemu-pages.js';
import { pageKeys, partBytes } from './part-reader.js';
import { StoreLock } from './lock.js';
import type { CheckpointSink, CheckpointSource, PartData, PutOptions } from './types.js';

/** SHA-256 as hex; the one-shot crypto.hash is ~1.4x faster than createHash on 4 KiB chunks. */
export function sha256(data: Uint8Array): string {
  return hash('sha256', data, 'hex');
}

export type { Compression };

const READ_BUFFER = 4 << 20;

/** CheckpointWriter.tryDelta: below this share of tries paying, try only every 256th page (a base read inflates a 64 KiB block of ~16 pages: probing every 16th page still inflated every block). */
const DELTA_MIN_RATE = 0.3;
const DELTA_PROBE_EVERY = 256;

/** Inflated blocks kept per open store (64 KiB each). */
const BLOCK_CACHE = 16;

export interface StoreOptions {
  compression?: Compression;
  /** Store a changed page as a delta against its previous version when that pays (default true; false: pages whole). */
  deltas?: boolean;
}

/** An open store directory. One writer at a time (the session host); any number of readers. */
export class Store {
  private readonly index = new Map<string, ChunkLocation>();
  private readonly packFds = new Map<string, number>();
  private readonly blocks = new Map<string, Buffer>();
  private readonly loadedIndexes = new Set<string>();
  /** Per part name: page keys of the newest checkpoint (delta bases for the next one). */
  private readonly lastPages = new Map<string, PageKeys>();
  private lock: StoreLock | null = null;
  readonly compression: Compression;
  readonly deltas: boolean;

  private constructor(
    readonly dir: string,
    opts: StoreOptions,
  ) {
    this.compression = opts.compression ?? 'deflate';
    this.deltas = opts.deltas ?? true;
  }

  /** Open (creating if needed) a store and load every intact pack index. Torn packs are ignored. */
  static open(dir: string, opts: StoreOptions = {}): Store {
    for (const sub of ['packs', 'checkpoints']) mkdirSync(path.join(dir, sub), { recursive: true });
    const store = new Store(dir, opts);
    store.loadIndex();
    return store;
  }

  private get packDir(): string {
    return path.join(this.dir, 'packs');
  }

  private get manifestDir(): string {
    return path.join(this.dir, 'checkpoints');
  }

  private loadIndex(): void {
    for (const f of readdirSync(this.packDir)) {
      if (!f.endsWith('.idx') || this.loadedIndexes.has(f)) continue;
      const idx = readPackIndex(path.join(this.packDir, f));
      if (!idx) continue;
      this.loadedIndexes.add(f);
      for (const e of idx.entries) this.index.set(e[0], entryLocation(idx.pack, e));
    }
  }

  /** Pick up packs another process committed since this store was opened (cheap: only new index files are read). */
  refresh(): void {
    this.loadIndex();
  }

  private manifestFiles(): string[] {
    return readdirSync(this.manifestDir)
      .filter((f) => /^\d{10}\.json$/.test(f))
      .sort();
  }

  /** A self-checking manifest with its chunk lists filled in; `broken` says why they could not be. Null: unreadable. */
  private readManifest(f: string): Manifest | null {
    const m = parseManifest(readFileSync(path.join(this.manifestDir, f), 'utf8'));
    if (!m?.chunkList) return m;
    const stored = m.parts as unknown as StoredPart[];
    const read = (hashes: string[]): Buffer => Buffer.concat(hashes.map((h) => this.readChunk(h)));
    try {
      let listChunks = m.chunkList;
      let list = read(m.chunkList);
      if (m.schemaVersion >= 4) {
        const leaves = decodeHashes(list);
        listChunks = [...m.chunkList, ...leaves];
        list = read(leaves);
      }
      return { ...m, parts: decodeChunkList(stored, list), listChunks };
    } catch (err) {
      const why = err instanceof Error ? err.message : String(err);
      return {
        ...m,
        parts: stored.map(({ count: _c, ...p }) => ({ ...p, chunks: [] })),
        broken: `checkpoint ${m.seq}'s chunk list cannot be read: ${why}`,
      };
    }
  }

  /** Every committed, self-consistent manifest, oldest first (with `broken` set where its chunk list is unreadable). */
  list(): Manifest[] {
    return this.manifestFiles()
      .map((f) => this.readManifest(f))
      .filter((m): m is Manifest => m !== null);
  }

  /** The newest committed checkpoint whose every chunk is present, or null. Reads manifests newest first. */
  latest(): Manifest | null {
    const files = this.manifestFiles();
    for (let i = files.length - 1; i >= 0; i--) {
      const m = this.readManifest(files[i]!);
      if (m && !m.broken && m.parts.every((p) => p.chunks.every((h) => this.present(h)))) return m;
    }
    return null;
  }

  /** Sequence number of the newest manifest file (valid or not), 0 when there is none. */
  lastSeq(): number {
    const last = this.manifestFiles().at(-1);
    return last ? Number(last.slice(0, 10)) : 0;
  }

  /**
   * Start writing checkpoint number last+1. Nothing is visible until `commit`. The first call takes the store's
   * writer lock (held until `close`, or until this process dies): one writer or gc at a time.
   */
  begin(step: number): CheckpointWriter {
    this.lock ??= StoreLock.acquire(this.dir, 'writer');
    return new CheckpointWriter(this, this.lastSeq() + 1, step);
  }

  /** Open a committed checkpoint for reading. */
  reader(m: Manifest): CheckpointReader {
    return new CheckpointReader(this, m);
  }

  /** @internal used by the writer. */
  has(hash: string): boolean {
    return this.index.has(hash);
  }

  /** Listed by an intact index, and so is its base if it is a delta. */
  private present(h: string): boolean {
    const loc = this.index.get(h);
    return loc !== undefined && (loc.base === undefined || this.index.has(loc.base));
  }

  /**
   * @internal The page keys of part `name` in the newest checkpoint: what this process last committed, else rebuilt
   * once from latest() (after a restart). Empty when there is none or it cannot be read: pages are then stored whole.
   */
  previousPages(name: string): PageKeys {
    let keys = this.lastPages.get(name);
    if (keys === undefined) {
      keys = this.pageKeysOf(this.latest(), name);
      this.lastPages.set(name, keys);
    }
    return keys;
  }

  /** The page keys of part `name` of checkpoint `m` (empty when it has no such page-split part or it cannot be read). */
  private pageKeysOf(m: Manifest | null, name: string): PageKeys {
    const part = m?.parts.find((p) => p.name === name && p.layout?.kind === 'qemu-pages');
    try {
      return part ? pageKeys(this, part) : PageKeys.EMPTY;
    } catch (err) {
      if (!(err instanceof IntegrityError)) throw err;
      return PageKeys.EMPTY;
    }
  }

  /**
   * Rebuild the page keys of every page-split part of the newest checkpoint now (~30 ms for a 256 MiB guest), so the
   * first checkpoint after a restart does not do it while it writes (inside the pause, with inline RAM ingest).
   * `newest`: that checkpoint, when the caller has just read it (a host that restored from it).
   */
  warmPageKeys(newest: Manifest | null = this.latest()): void {
    for (const p of newest?.parts ?? [])
      if (p.layout?.kind === 'qemu-pages' && !this.lastPages.has(p.name))
        this.lastPages.set(p.name, this.pageKeysOf(newest, p.name));
  }

  /** @internal the writer, after a commit. */
  setPreviousPages(name: string, keys: PageKeys): void {
    this.lastPages.set(name, keys);
  }

  /** @internal used by the writer once a pack is sealed. */
  addLocations(entries: Iterable<[string, ChunkLocation]>): void {
    for (const [h, loc] of entries) this.index.set(h, loc);
  }

  /** @internal */
  packDirPath(): string {
    return this.packDir;
  }

  /** @internal */
  manifestDirPath(): string {
    return this.manifestDir;
  }

  /** Where a chunk is kept, if any intact index lists it. */
  locate(h: string): ChunkLocation | undefined {
    return this.index.get(h);
  }

  /** The stored bytes at a location (a raw chunk or a whole compressed block), unchecked; null if the pack is short. */
  private readStored(h: string, loc: ChunkLocation): Buffer | null {
    let fd = this.packFds.get(loc.pack);
    if (fd === undefined) {
      try {
        fd = openSync(path.join(this.packDir, `${loc.pack}.pack`), 'r');
      } catch (err) {
        throw new IntegrityError(`store ${this.dir}: chunk ${h} is missing (pack ${loc.pack} cannot be opened)`, {
          cause: err,
        });
      }
      this.packFds.set(loc.pack, fd);
    }
    const buf = Buffer.allocUnsafe(loc.length);
    return readSync(fd, buf, 0, loc.length, loc.offset) === loc.length ? buf : null;
  }

  /** The inflated block at a location; the last few are cached (a restore reads a block's chunks one after another). */
  private block(h: string, loc: ChunkLocation): Buffer | null {
    const key = `${loc.pack}:${loc.offset}`;
    const hit = this.blocks.get(key);
    if (hit) return hit;
    const stored = this.readStored(h, loc);
    let data: Buffer | null = null;
    try {
      data = stored && inflateRawSync(stored);
    } catch {
      data = null;
    }
    if (data === null) return null;
    this.blocks.set(key, data);
    if (this.blocks.size > BLOCK_CACHE) this.blocks.delete(this.blocks.keys().next().value!);
    return data;
  }

  /** The bytes stored at a location: the chunk, or its delta; null if the pack is short or the block is corrupt. */
  private storedForm(h: string, loc: ChunkLocation): Buffer | null {
    if (loc.codec === 0) return this.readStored(h, loc);
    const block = this.block(h, loc);
    return block && block.length >= loc.inner + loc.rawLength
      ? block.subarray(loc.inner, loc.inner + loc.rawLength)
      : null;
  }

  /** Read one chunk (rebuilt from its base if it is a delta), check its hash. Throws IntegrityError on a missing or corrupt chunk. */
  readChunk(h: string): Buffer {
    return this.readChecked(h).data;
  }

  /** @internal the writer: a chunk stored whole (not a delta), without its hash check; null if absent, a delta or unreadable. */
  readWholeUnchecked(h: string): Buffer | null {
    const loc = this.index.get(h);
    if (loc === undefined || loc.base !== undefined) return null;
    try {
      return this.storedForm(h, loc);
    } catch (err) {
      if (err instanceof IntegrityError) return null;
      throw err;
    }
  }

  /** @internal gc: a chunk's stored bytes and base (a delta stays a delta when copied), checked through the whole chunk. */
  readStoredChunk(h: string): { stored: Buffer; base?: string } {
    const { stored, loc } = this.readChecked(h);
    return loc.base === undefined ? { stored } : { stored, base: loc.base };
  }

  private readChecked(h: string): { data: Buffer; stored: Buffer; loc: ChunkLocation } {
    const loc = this.index.get(h);
    if (!loc) throw new IntegrityError(`store ${this.dir}: chunk ${h} is missing (no intact pack index lists it)`);
    const stored = this.storedForm(h, loc);
    let data = stored;
    if (stored !== null && loc.base !== undefined) {
      const baseLoc = this.index.get(loc.base);
      if (!baseLoc)
        throw new IntegrityError(`store ${this.dir}: chunk ${h} is a delta whose base ${loc.base} is missing`);
      // Bases are stored whole (the writer never deltas against a delta): a chain means a corrupt index.
      if (baseLoc.base !== undefined)
        throw new IntegrityError(
          `store ${this.dir}: chunk ${h} is a delta whose base ${loc.base} is itself a delta (corrupt index of pack ${loc.pack})`,
        );
      let base: Buffer;
      try {
        base = this.readChunk(loc.base);
      } catch (err) {
        if (!(err instanceof IntegrityError)) throw err;
        throw new IntegrityError(`store ${this.dir}: chunk ${h} is a delta whose base cannot be read: ${err.message}`, {
          cause: err,
        });
      }
      data = applyDelta(base, stored);
    }
    if (data === null || stored === null || sha256(data) !== h) {
      throw new IntegrityError(`store ${this.dir}: chunk ${h} in pack ${loc.pack} at offset ${loc.offset} is corrupt`);
    }
    return { data, stored, loc };
  }

  /** Bytes on disk: packs (including torn ones) plus manifests. */
  diskBytes(): number {
    let total = 0;
    for (const sub of [this.packDir, this.manifestDir]) {
      for (const f of readdirSync(sub)) total += statSync(path.join(sub, f)).size;
    }
    return total;
  }

  /** Close pack files and release the writer lock if this process took it. */
  close(): void {
    for (const fd of this.packFds.values()) closeSync(fd);
    this.packFds.clear();
    this.lock?.release();
    this.lock = null;
  }

  /** @internal gc: forget cached pack fds and reload the index from scratch after packs were rewritten. */
  reload(): void {
    for (const fd of this.packFds.values()) closeSync(fd);
    this.packFds.clear();
    this.blocks.clear();
    this.index.clear();
    this.loadedIndexes.clear();
    this.loadIndex();
  }

  /** @internal gc: run `fn` holding the writer lock (taken here unless this process already holds it). */
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

/** Write side of one checkpoint: chunks go to a new pack; commit seals the pack and then renames the manifest into place. */
export class CheckpointWriter implements CheckpointSink {
  private readonly pack: PackWriter;
  private readonly pending = new Set<string>();
  /** For tryDelta: new pages with a base so far, and the recent share of tries that paid. */
  private deltaCandidates = 0;
  private deltaRate = 1;
  private readonly parts: PartEntry[] = [];
  /** Page keys of this checkpoint's page-split parts: the store's delta bases once it is committed. */
  private readonly pageKeys = new Map<string, PageKeys>();
  private chunkCount = 0;
  private committed = false;

  constructor(
    private readonly store: Store,
    readonly seq: number,
    public step: number,
  ) {
    this.pack = new PackWriter(store.packDirPath(), store.compression);
  }

  /** Hash one chunk; keep it unless the store or this checkpoint already has it (as a delta against `base` if that pays). */
  private addChunk(chunk: Uint8Array, into: string[], base?: string): void {
    const h = sha256(chunk);
    if (!this.store.has(h) && !this.pending.has(h)) {
      this.pending.add(h);
      const delta = base !== undefined && this.store.deltas && this.tryDelta() ? this.delta(chunk, base) : null;
      if (delta) this.pack.add(h, delta.stored, delta.base);
      else this.pack.add(h, chunk);
    }
    into.push(h);
    this.chunkCount++;
  }

  /**
   * Whether to try a delta for this new page that has a base. Trying costs reading the base (inflating its block): in
   * one continuous session ~90% of tries pay, but in the first checkpoint after a fresh boot ~12% do (1,322 tries,
   * 45 ms, 15% of that store write, for 1.4% fewer bytes). So once fewer than DELTA_MIN_RATE of recent tries paid,
   * only every DELTA_PROBE_EVERY-th page is tried, until they pay again.
   */
  private tryDelta(): boolean {
    this.deltaCandidates++;
    return this.deltaRate >= DELTA_MIN_RATE || this.deltaCandidates % DELTA_PROBE_EVERY === 0;
  }

  /** Note whether a try paid (exponential moving average over ~32 tries). */
  private deltaTried(paid: boolean): void {
    this.deltaRate += ((paid ? 1 : 0) - this.deltaRate) / 32;
  }

  /**
   * `chunk` as a delta against `hint`'s whole base (a committed chunk stored whole), or null when that does not pay.
   * The base is hash-checked only once the delta pays (never build on a corrupt base): after a fresh boot nearly every
   * page differs from its predecessor, and checking each base first made such a checkpoint's store write 14% slower.
   */
  private delta(chunk: Uint8Array, hint: string): { stored: Buffer; base: string } | null {
    const base = this.store.locate(hint)?.base ?? hint;
    const baseBytes = this.store.readWholeUnchecked(base);
    if (baseBytes === null || baseBytes.length !== chunk.length) return null;
    const stored = encodeDelta(chunk, baseBytes);
    const paid = stored !== null && sha256(baseBytes) === base;
    this.deltaTried(paid);
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
          this.store.previousPages(entry.name),
        );
    }
  }

  async put(name: string, data: PartData, opts: PutOptions = {}): Promise<void> {
    if (this.parts.some((p) => p.name === name))
      throw new Error(`checkpoint ${this.seq}: part "${name}" written twice`);
    const entry: PartEntry = { name, size: 0, chunks: [] };
    const cutter = this.cutter(entry, opts);
    if (data instanceof Uint8Array) {
      cutter.push(data);
      entry.size = data.length;
    } else {
      for await (const piece of data) {
        cutter.push(piece);
        entry.size += piece.length;
      }
    }
    cutter.end();
    if (cutter instanceof PagesCutter) this.pageKeys.set(name, cutter.pageKeys);
    this.parts.push(entry);
  }

  async putFile(name: string, file: string, opts: PutOptions = {}): Promise<void> {
    await this.put(name, readAhead(file), opts);
  }

  /** Make the checkpoint durable and visible: pack data, pack index, then the manifest (temp, fsync, rename, dir fsync). */
  commit(meta: Record<string, number | string> = {}): Manifest {
    if (this.committed) throw new Error(`checkpoint ${this.seq} committed twice`);
    // The chunk lists go into the pack like data (they dedup against the previous checkpoint's), before it is sealed.
    const newDataChunks = this.pack.count;
    const newDeltas = this.pack.deltas;
    const leaves: string[] = [];
    for (const leaf of splitHashList(encodeChunkList(this.parts), LIST_LEAF_EVERY)) this.addChunk(leaf, leaves);
    const chunkList: string[] = [];
    for (const top of splitHashList(encodeHashes(leaves), LIST_TOP_EVERY)) this.addChunk(top, chunkList);
    this.chunkCount -= leaves.length + chunkList.length; // `chunks` counts the parts' chunks
    const idxBytes = this.pack.seal();
    const packBytes = this.pack.bytes;
    const stored: StoredPart[] = this.parts.map(({ chunks, ...p }) => ({ ...p, count: chunks.length }));
    const body: Omit<Manifest, 'check'> = {
      schemaVersion: MANIFEST_SCHEMA_VERSION,
      seq: this.seq,
      step: this.step,
      createdAt: new Date().toISOString(),
      parts: stored as unknown as PartEntry[],
      logicalBytes: this.parts.reduce((s, p) => s + p.size, 0),
      storedBytes: packBytes + idxBytes,
      chunks: this.chunkCount,
      newChunks: newDataChunks,
      newDeltas,
      meta,
      chunkList,
    };
    const { manifest: written, text } = serializeManifest(body);
    const manifest: Manifest = { ...written, parts: this.parts, listChunks: [...chunkList, ...leaves] };
    writeFileAtomic(path.join(this.store.manifestDirPath(), manifestFileName(this.seq)), text);
    this.store.addLocations(this.pack.locations());
    for (const [name, keys] of this.pageKeys) this.store.setPreviousPages(name, keys);
    this.committed = true;
    return manifest;
  }

  abandon(): void {
    this.pack.abandon();
  }
}

/** Read side of one committed checkpoint; every chunk read is hash-checked. */
export class CheckpointReader implements CheckpointSource {
  constructor(
    private readonly store: Store,
    readonly manifest: Manifest,
  ) {}

  get seq(): number {
    return this.manifest.seq;
  }

  get step(): number {
    return this.manifest.step;
  }

  parts(): string[] {
    return this.manifest.parts.map((p) => p.name);
  }

  private part(name: string): PartEntry {
    const p = this.manifest.parts.find((x) => x.name === name);
    if (!p)
      throw new IntegrityError(`checkpoint ${this.seq} has no part "${name}" (it has: ${this.parts().join(', ')})`);
    return p;
  }

  async get(name: string): Promise<Buffer> {
    const p = this.part(name);
    return Buffer.concat([...partBytes(this.store, p)], p.size);
  }

  /** The part's bytes in ~1 MiB pieces (a page-split stream is rebuilt byte for byte on the way). */
  async *stream(name: string): AsyncGenerator<Buffer> {
    yield* partBytes(this.store, this.part(name));
  }

  /** Not fsynced: a materialised part is scratch for a restore; the durable copy stays in the store. */
  async writeFile(name: string, file: string): Promise<void> {
    const fd = openSync(file, 'w', 0o600);
    try {
      for (const piece of partBytes(this.store, this.part(name))) writeSync(fd, piece);
    } finally {
      closeSync(fd);
    }
  }
}

/**
 * A file's bytes through two reused 4 MiB buffers, the next read in flight while the caller hashes the current one
 * (awaiting each read before hashing left the one core idle 12% of the time; fresh buffers per read cost GC). Safe
 * because every cutter consumes a pushed buffer before `push` returns: chunks are hashed and copied at once.
 */
async function* readAhead(file: string): AsyncGenerator<Uint8Array> {
  const fh = await open(file, 'r');
  const bufs = [Buffer.allocUnsafe(READ_BUFFER), Buffer.allocUnsafe(READ_BUFFER)];
  let i = 0;
  let next = fh.read(bufs[0]!, 0, READ_BUFFER, null);
  try {
    for (;;) {
      const { bytesRead } = await next;
      if (bytesRead === 0) return;
      const current = bufs[i]!;
      i ^= 1;
      next = fh.read(bufs[i]!, 0, READ_BUFFER, null);
      yield current.subarray(0, bytesRead);
    }
  } finally {
    await next.catch(() => {});
    await fh.close();
  }
}

/** True when `dir` looks like a store (has a checkpoints folder). */
export function isStore(dir: string): boolean {
  return existsSync(path.join(dir, 'checkpoints'));
}
