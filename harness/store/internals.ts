// What the writer and gc work with beneath the repository's public methods: folders, chunk index, pack reads, delta bases.
import type { ChunkIndex } from './index/chunk-index.js';
import type { DeltaBases } from './delta-bases.js';
import type { Compression } from './pack.js';
import type { PackReader } from './read/pack-reader.js';
import type { StorePaths } from './paths.js';

/** What the writer and gc (modules of this folder) work with beneath the repository's public methods. */
export interface StoreInternals {
  readonly paths: StorePaths;
  readonly compression: Compression;
  readonly deltas: boolean;
  readonly index: ChunkIndex;
  readonly packs: PackReader;
  readonly bases: DeltaBases;
}
