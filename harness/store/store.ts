// The content-addressed checkpoint store: SHA-256 chunks in packs, a checkpoint visible only once its manifest is committed.
import { createHash } from 'node:crypto';
import { closeSync, createReadStream, existsSync, fsyncSync, mkdirSync, openSync, readdirSync, readFileSync, readSync, statSync, writeSync } from 'node:fs';
import path from 'node:path';
import { IntegrityError } from '../errors.js';
import { cdcChunks } from './cdc.js';
import { chunks } from './chunker.js';
import { writeFileAtomic } from './fsync.js';
import { MANIFEST_SCHEMA_VERSION, manifestCheck, manifestFileName, parseManifest, type Manifest, type PartEntry } from './manifest.js';
import { PackWriter, readPackIndex, type ChunkLocation } from './pack.js';
import type { CheckpointSink, CheckpointSource, PartData, PutOptions } from './types.js';

export function sha256(data: Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

/** An open store directory. One writer at a time (the session host); any number of readers. */
export class Store {
  private readonly index = new Map<string, ChunkLocation>();
  private readonly packFds = new Map<string, number>();
  private readonly loadedIndexes = new Set<string>();

  private constructor(readonly dir: string) {}

  /** Open (creating if needed) a store and load every intact pack index. Torn packs are ignored. */
  static open(dir: string): Store {
    for (const sub of ['packs', 'checkpoints']) mkdirSync(path.join(dir, sub), { recursive: true });
    const store = new Store(dir);
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
      for (const [hash, offset, length] of idx.entries) this.index.set(hash, { pack: idx.pack, offset, length });
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

  private readManifest(f: string): Manifest | null {
    return parseManifest(readFileSync(path.join(this.manifestDir, f), 'utf8'));
  }

  /** Every committed, self-consistent manifest, oldest first. */
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
      if (m && m.parts.every((p) => p.chunks.every((h) => this.index.has(h)))) return m;
    }
    return null;
  }

  /** Sequence number of the newest manifest file (valid or not), 0 when there is none. */
  lastSeq(): number {
    const last = this.manifestFiles().at(-1);
    return last ? Number(last.slice(0, 10)) : 0;
  }

  /** Start writing checkpoint number last+1. Nothing is visible until `commit`. */
  begin(step: number): CheckpointWriter {
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

  /** Read one chunk and check its hash. Throws IntegrityError on a missing or corrupt chunk. */
  readChunk(hash: string): Buffer {
    const loc = this.index.get(hash);
    if (!loc) throw new IntegrityError(`store ${this.dir}: chunk ${hash} is missing (no intact pack index lists it)`);
    let fd = this.packFds.get(loc.pack);
    if (fd === undefined) {
      fd = openSync(path.join(this.packDir, `${loc.pack}.pack`), 'r');
      this.packFds.set(loc.pack, fd);
    }
    const buf = Buffer.allocUnsafe(loc.length);
    const n = readSync(fd, buf, 0, loc.length, loc.offset);
    if (n !== loc.length || sha256(buf) !== hash) {
      throw new IntegrityError(`store ${this.dir}: chunk ${hash} in pack ${loc.pack} at offset ${loc.offset} is corrupt`);
    }
    return buf;
  }

  /** Bytes on disk: packs (including torn ones) plus manifests. */
  diskBytes(): number {
    let total = 0;
    for (const sub of [this.packDir, this.manifestDir]) {
      for (const f of readdirSync(sub)) total += statSync(path.join(sub, f)).size;
    }
    return total;
  }

  close(): void {
    for (const fd of this.packFds.values()) closeSync(fd);
    this.packFds.clear();
  }
}

/** Write side of one checkpoint: chunks go to a new pack; commit seals the pack and then renames the manifest into place. */
export class CheckpointWriter implements CheckpointSink {
  private readonly pack: PackWriter;
  private readonly pending = new Map<string, ChunkLocation>();
  private readonly parts: PartEntry[] = [];
  private chunkCount = 0;
  private committed = false;

  constructor(
    private readonly store: Store,
    readonly seq: number,
    public step: number,
  ) {
    this.pack = new PackWriter(store.packDirPath());
  }

  async put(name: string, data: PartData, opts: PutOptions = {}): Promise<void> {
    if (this.parts.some((p) => p.name === name)) throw new Error(`checkpoint ${this.seq}: part "${name}" written twice`);
    const entry: PartEntry = { name, size: 0, chunks: [] };
    for await (const chunk of opts.chunking === 'cdc' ? cdcChunks(data) : chunks(data)) {
      const hash = sha256(chunk);
      if (!this.store.has(hash) && !this.pending.has(hash)) this.pending.set(hash, this.pack.add(hash, chunk));
      entry.chunks.push(hash);
      entry.size += chunk.length;
      this.chunkCount++;
    }
    this.parts.push(entry);
  }

  async putFile(name: string, file: string, opts: PutOptions = {}): Promise<void> {
    await this.put(name, createReadStream(file, { highWaterMark: 1 << 20 }), opts);
  }

  /** Make the checkpoint durable and visible: pack data, pack index, then the manifest (temp, fsync, rename, dir fsync). */
  commit(meta: Record<string, number | string> = {}): Manifest {
    if (this.committed) throw new Error(`checkpoint ${this.seq} committed twice`);
    const packBytes = this.pack.bytes;
    const idxBytes = this.pack.seal();
    const body: Omit<Manifest, 'check'> = {
      schemaVersion: MANIFEST_SCHEMA_VERSION,
      seq: this.seq,
      step: this.step,
      createdAt: new Date().toISOString(),
      parts: this.parts,
      logicalBytes: this.parts.reduce((s, p) => s + p.size, 0),
      storedBytes: packBytes + idxBytes,
      chunks: this.chunkCount,
      newChunks: this.pack.count,
      meta,
    };
    const manifest: Manifest = { ...body, check: manifestCheck(body) };
    writeFileAtomic(path.join(this.store.manifestDirPath(), manifestFileName(this.seq)), JSON.stringify(manifest));
    this.store.addLocations(this.pending);
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
    if (!p) throw new IntegrityError(`checkpoint ${this.seq} has no part "${name}" (it has: ${this.parts().join(', ')})`);
    return p;
  }

  async get(name: string): Promise<Buffer> {
    const p = this.part(name);
    return Buffer.concat(p.chunks.map((h) => this.store.readChunk(h)), p.size);
  }

  async *stream(name: string): AsyncGenerator<Buffer> {
    for (const h of this.part(name).chunks) yield this.store.readChunk(h);
  }

  /** Not fsynced: a materialised part is scratch for a restore; the durable copy stays in the store. */
  async writeFile(name: string, file: string): Promise<void> {
    const fd = openSync(file, 'w', 0o600);
    try {
      for (const h of this.part(name).chunks) writeSync(fd, this.store.readChunk(h));
    } finally {
      closeSync(fd);
    }
  }
}

/** True when `dir` looks like a store (has a checkpoints folder). */
export function isStore(dir: string): boolean {
  return existsSync(path.join(dir, 'checkpoints'));
}

