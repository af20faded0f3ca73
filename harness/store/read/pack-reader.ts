// Reading chunks out of packs: one open fd per pack, the last few decompressed blocks cached (deflate-raw or LZ4),
// deltas rebuilt from their base, and every chunk hash-checked on the way out.
import { closeSync, openSync, readSync } from 'node:fs';
import path from 'node:path';
import { inflateRawSync } from 'node:zlib';
import { IntegrityError } from '../../core/errors.js';
import { applyDelta } from '../chunking/delta.js';
import { lz4Decode, lz4PlainSize } from './lz4-block.js';
import type { ChunkIndex } from '../index/chunk-index.js';
import type { ChunkLocation } from '../index/pack-index.js';
import { sha256 } from '../sha256.js';

/** Decompressed blocks kept per open store (64 KiB each). */
const BLOCK_CACHE = 16;
/** Chunks already hash-checked, kept with their bytes (a repeated page or a delta's base is not hashed again). */
const VERIFIED_CACHE = 256;
/** The largest plain size an LZ4 block may declare (blocks are ~64 KiB; a chunk may make one up to ~2x that). */
const MAX_BLOCK = 16 << 20;

/** Reads the chunks `index` lists from the packs of `packDir`; `label` names the store in error messages. */
export class PackReader {
  private readonly packFds = new Map<string, number>();
  private readonly blocks = new Map<string, Buffer>();
  private readonly verified = new Map<string, Buffer>();

  constructor(
    private readonly label: string,
    private readonly packDir: string,
    private readonly index: ChunkIndex,
  ) {}

  /** Read one chunk (rebuilt from its base if it is a delta), check its hash. Throws IntegrityError on a missing or corrupt chunk. */
  readChunk(h: string): Buffer {
    const hit = this.verified.get(h);
    if (hit) return hit;
    try {
      const { data } = this.readChecked(h);
      if (this.verified.size >= VERIFIED_CACHE) this.verified.delete(this.verified.keys().next().value!);
      this.verified.set(h, data);
      return data;
    } catch (err) {
      // a location index led astray (stale or forged): read every pack index and try once more
      if (err instanceof IntegrityError && this.index.dropSeeds()) return this.readChecked(h).data;
      throw err;
    }
  }

  /** A chunk stored whole (not a delta), without its hash check (the writer's delta base); null if absent, a delta or unreadable. */
  readWholeUnchecked(h: string): Buffer | null {
    const loc = this.index.locate(h);
    if (loc === undefined || loc.base !== undefined) return null;
    try {
      return this.storedForm(h, loc);
    } catch (err) {
      if (err instanceof IntegrityError) return null;
      throw err;
    }
  }

  /** A chunk's stored bytes and base (gc copies a delta as a delta), checked through the whole chunk. */
  readStoredChunk(h: string): { stored: Buffer; base?: string } {
    const { stored, loc } = this.readChecked(h);
    return loc.base === undefined ? { stored } : { stored, base: loc.base };
  }

  /** Where chunk `h` is kept, if an intact index lists it. */
  locate(h: string): ChunkLocation | undefined {
    return this.index.locate(h);
  }

  /** The file of pack `pack`. */
  packFile(pack: string): string {
    return path.join(this.packDir, `${pack}.pack`);
  }

  /** Close every pack file and drop cached blocks (packs may have been rewritten). */
  close(): void {
    for (const fd of this.packFds.values()) closeSync(fd);
    this.packFds.clear();
    this.blocks.clear();
    this.verified.clear();
  }

  /** The stored bytes at a location (a raw chunk or a whole compressed block), unchecked; null if the pack is short. */
  private readStored(h: string, loc: ChunkLocation): Buffer | null {
    const buf = Buffer.allocUnsafe(loc.length);
    return readSync(this.fd(h, loc.pack), buf, 0, loc.length, loc.offset) === loc.length ? buf : null;
  }

  /** The open fd of a pack (opened on first use); `h` names the chunk wanted when it cannot be opened. */
  private fd(h: string, pack: string): number {
    let fd = this.packFds.get(pack);
    if (fd === undefined) {
      try {
        fd = openSync(this.packFile(pack), 'r');
      } catch (err) {
        throw new IntegrityError(`store ${this.label}: chunk ${h} is missing (pack ${pack} cannot be opened)`, {
          cause: err,
        });
      }
      this.packFds.set(pack, fd);
    }
    return fd;
  }

  /** The decompressed block at a location; the last few are cached (a restore reads a block's chunks one after another). */
  private block(h: string, loc: ChunkLocation): Buffer | null {
    const key = `${loc.pack}:${loc.offset}`;
    const hit = this.blocks.get(key);
    if (hit) return hit;
    const stored = this.readStored(h, loc);
    if (stored === null) return null;
    let data: Buffer;
    if (loc.codec === 3) {
      const size = lz4PlainSize(stored);
      // a block is ~64 KiB plain; a size far past its chunks is a damaged header, not an allocation to make
      if (size < loc.inner + loc.rawLength || size > MAX_BLOCK) return null;
      data = Buffer.allocUnsafe(size);
      if (lz4Decode(stored, data, 0, size) !== size) return null;
    } else {
      try {
        data = inflateRawSync(stored);
      } catch {
        return null;
      }
    }
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

  private readChecked(h: string): { data: Buffer; stored: Buffer; loc: ChunkLocation } {
    const loc = this.index.locate(h);
    if (!loc) throw new IntegrityError(`store ${this.label}: chunk ${h} is missing (no intact pack index lists it)`);
    const stored = this.storedForm(h, loc);
    let data = stored;
    if (stored !== null && loc.base !== undefined) {
      const baseLoc = this.index.locate(loc.base);
      if (!baseLoc)
        throw new IntegrityError(`store ${this.label}: chunk ${h} is a delta whose base ${loc.base} is missing`);
      // Bases are stored whole (the writer never deltas against a delta): a chain means a corrupt index.
      if (baseLoc.base !== undefined)
        throw new IntegrityError(
          `store ${this.label}: chunk ${h} is a delta whose base ${loc.base} is itself a delta (corrupt index of pack ${loc.pack})`,
        );
      let base: Buffer;
      try {
        base = this.readChunk(loc.base);
      } catch (err) {
        if (!(err instanceof IntegrityError)) throw err;
        throw new IntegrityError(
          `store ${this.label}: chunk ${h} is a delta whose base cannot be read: ${err.message}`,
          { cause: err },
        );
      }
      data = applyDelta(base, stored);
    }
    if (data === null || stored === null || sha256(data) !== h) {
      throw new IntegrityError(
        `store ${this.label}: chunk ${h} in pack ${loc.pack} at offset ${loc.offset} is corrupt`,
      );
    }
    return { data, stored, loc };
  }
}
