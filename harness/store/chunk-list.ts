// A checkpoint's chunk list: every part's chunk hashes stored as chunks (leaves), named by a second level (the top),
// so a list that barely changes from one checkpoint to the next dedups like data. The manifest keeps only the top.
import type { ListedManifestFile, Manifest, PartEntry, StoredPart } from './manifest.js';

/** splitHashList: a leaf of the chunk list ends after a hash whose first two bytes are 0 mod 16 (~16 hashes). */
export const LIST_LEAF_EVERY = 16;
/** The second level (hashes of the leaves) ends a chunk ~every 64 hashes. */
export const LIST_TOP_EVERY = 64;
const LIST_MAX_HASHES = 1024;

/**
 * Cut a list of 32-byte hashes after each hash whose first two bytes (big-endian) are 0 mod `every`, and after
 * LIST_MAX_HASHES hashes: cuts follow the hashes themselves, so a changed or inserted hash changes only its own piece.
 */
export function splitHashList(list: Buffer, every: number): Buffer[] {
  const out: Buffer[] = [];
  let start = 0;
  for (let at = 0; at < list.length; at += 32) {
    if (list.readUInt16BE(at) % every === 0 || at + 32 - start >= 32 * LIST_MAX_HASHES || at + 32 >= list.length) {
      out.push(list.subarray(start, at + 32));
      start = at + 32;
    }
  }
  return out;
}

/** 32 bytes per hex hash. */
export function encodeHashes(hashes: readonly string[]): Buffer {
  const out = Buffer.allocUnsafe(32 * hashes.length);
  hashes.forEach((h, i) => out.write(h, 32 * i, 'hex'));
  return out;
}

/**
 * The hex hashes of a buffer of 32-byte hashes. A hash equal to the one before it shares its string (a RAM image's
 * list is mostly runs of the zero page's hash: one string per run, not per page).
 */
export function decodeHashes(buf: Buffer): string[] {
  if (buf.length % 32 !== 0) throw new Error(`a hash list of ${buf.length} bytes is not a multiple of 32`);
  // pushed, not stored into new Array(n): past ~32k entries that array is not a plain one (V8 gave optimised code
  // compiled on a warm-up's short list an out-of-bounds deoptimisation on a restore's 65,536-page list)
  const out: string[] = [];
  const n = buf.length / 32;
  for (let i = 0; i < n; i++)
    out.push(
      i > 0 && buf.compare(buf, 32 * i - 32, 32 * i, 32 * i, 32 * i + 32) === 0
        ? out[i - 1]!
        : buf.toString('hex', 32 * i, 32 * i + 32),
    );
  return out;
}

/** The hashes of every part's chunks, 32 bytes each, in part order: what the leaves hold. */
export function encodeChunkList(parts: readonly PartEntry[]): Buffer {
  return Buffer.concat(parts.map((p) => encodeHashes(p.chunks)));
}

/** Give each stored part its hashes back from the decoded chunk list; throws when the sizes disagree. */
export function decodeChunkList(parts: readonly StoredPart[], list: Buffer): PartEntry[] {
  const want = 32 * parts.reduce((s, p) => s + p.count, 0);
  if (list.length !== want) throw new Error(`its chunk list holds ${list.length} bytes, the parts need ${want}`);
  let off = 0;
  return parts.map(({ count, ...p }) => {
    const chunks = decodeHashes(list.subarray(off, (off += 32 * count)));
    return { ...p, chunks };
  });
}

/** Adds one chunk to a list of hashes (the writer's hash + dedup + pack step). */
export type AddListChunk = (chunk: Uint8Array, into: string[]) => void;

/** Store the chunk list of `parts` through `add`: the leaves, then the top level naming them. */
export function writeChunkList(parts: readonly PartEntry[], add: AddListChunk): { top: string[]; leaves: string[] } {
  const leaves: string[] = [];
  for (const leaf of splitHashList(encodeChunkList(parts), LIST_LEAF_EVERY)) add(leaf, leaves);
  const top: string[] = [];
  for (const chunk of splitHashList(encodeHashes(leaves), LIST_TOP_EVERY)) add(chunk, top);
  return { top, leaves };
}

/**
 * A version 3+ manifest file with its parts' chunk lists read back through `readChunk` (hash-checked). When they
 * cannot be read the parts come back with no chunks and `broken` says why.
 */
export function readChunkList(m: ListedManifestFile, readChunk: (hash: string) => Buffer): Manifest {
  const read = (hashes: string[]): Buffer => Buffer.concat(hashes.map((h) => readChunk(h)));
  try {
    let listChunks = m.chunkList;
    let list = read(m.chunkList);
    if (m.schemaVersion >= 4) {
      const leaves = decodeHashes(list);
      listChunks = [...m.chunkList, ...leaves];
      list = read(leaves);
    }
    return { ...m, parts: decodeChunkList(m.parts, list), listChunks };
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    return {
      ...m,
      parts: m.parts.map((p) => ({ name: p.name, size: p.size, chunks: [], ...(p.layout && { layout: p.layout }) })),
      broken: `checkpoint ${m.seq}'s chunk list cannot be read: ${why}`,
    };
  }
}
