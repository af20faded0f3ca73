// The store's public face, one import for the harness, tests and benches: the repository and what it hands out.
export { type StoreOptions, Store } from './repository.js';
export { CheckpointWriter } from './writer.js';
export { CheckpointReader } from './read/reader.js';
export { isStore } from './paths.js';
export { sha256 } from './sha256.js';
export type { Compression } from './pack.js';
