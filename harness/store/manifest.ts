// Checkpoint manifests: the committed, self-checking record of one checkpoint's parts and their chunks.
import { createHash } from 'node:crypto';

/**
 * 2 added PartEntry.layout. 3 moved the chunk lists out of the file into the store: `chunkList` names chunks that hold
 * every part's chunk hashes (32 bytes each, in part order, content-defined cuts), so a list that barely changes from
 * one checkpoint to the next dedups like data (a 256 MiB guest's page list is ~460 KiB; as JSON hex in every
 * manifest it was ~1 MiB per checkpoint, half of what a compressed series stored). 4 cuts the list between hashes
 * (splitHashList: ~16 hashes a leaf) and stores a second level naming the leaves; `chunkList` names the second
 * level's chunks. A changed page then costs one ~512-byte leaf instead of a ~4 KiB CDC chunk of the list: simulated on
 * a 20-checkpoint series of a 256 MiB guest, the lists stored 1.7 MiB instead of 3.0. Versions 1 to 3 still read.
 */
export const MANIFEST_SCHEMA_VERSION = 4;
const READABLE_VERSIONS: readonly number[] = [1, 2, 3, 4];

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

/** The hex hashes of a buffer of 32-byte hashes. */
export function decodeHashes(buf: Buffer): string[] {
  if (buf.length % 32 !== 0) throw new Error(`a hash list of ${buf.length} bytes is not a multiple of 32`);
  const out = new Array<string>(buf.length / 32);
  for (let i = 0; i < out.length; i++) out[i] = buf.toString('hex', 32 * i, 32 * i + 32);
  return out;
}

export interface PartEntry {
  name: string;
  /** Logical bytes: the part as the target handed it over (for a migration stream, the stream's size). */
  size: number;
  /** Every chunk the part needs, in layout order (verify and gc need nothing else). */
  chunks: string[];
  /** Absent: the part is its chunks concatenated. */
  layout?: PagesLayout;
}

/** A page-split QEMU migration stream (chunking `qemu-pages`): chunks = meta chunks, then map chunks, then pages. */
export interface PagesLayout {
  kind: 'qemu-pages';
  /** chunks[0, metaChunks): the stream minus its page payloads, content-defined chunks. */
  metaChunks: number;
  metaBytes: number;
  /** The next mapChunks chunks: one LEB128 varint per page, the meta bytes before it since the previous page. */
  mapChunks: number;
  /** The remaining chunks: one 4 KiB payload per page, in stream order. */
  pages: number;
  /** Zero pages: markers in the meta stream, no payload. */
  zeroPages: number;
  /** Guest RAM the stream declares (its RAM_SAVE_FLAG_MEM_SIZE record); null if not seen. */
  ramBytes: number | null;
  /** Where the splitter stopped understanding the stream; everything after is meta. Null: parsed to the end. */
  fallback: { offset: number; reason: string } | null;
}

export interface Manifest {
  schemaVersion: number;
  seq: number;
  step: number;
  createdAt: string;
  parts: PartEntry[];
  /** Sum of part sizes. */
  logicalBytes: number;
  /** Bytes this checkpoint added to the store: new chunk data plus its pack index (manifests are in Store.diskBytes). */
  storedBytes: number;
  chunks: number;
  /** New chunks of the parts (the chunk list's own new chunks are in storedBytes, not here). */
  newChunks: number;
  /** Of newChunks, those stored as deltas against a base (absent in manifests written before deltas). */
  newDeltas?: number;
  meta: Record<string, number | string>;
  /**
   * Version 3: the chunks that hold the parts' chunk lists (the file's parts carry `count` instead of `chunks`).
   * Version 4: the chunks that hold the hashes of those chunks (a second level; see MANIFEST_SCHEMA_VERSION).
   */
  chunkList?: string[];
  /** Not in the file: every chunk the chunk list occupies (both levels), filled in when it is read. */
  listChunks?: string[];
  /** sha256 of the manifest body without this field. */
  check: string;
  /** Not in the file: set when the chunk list cannot be read (missing or corrupt chunk); the parts' chunks are then empty. */
  broken?: string;
}

/** A part as a version-3 file has it: its chunk hashes live in the manifest's chunkList. */
export type StoredPart = Omit<PartEntry, 'chunks'> & { count: number };

/** The hashes of every part's chunks, 32 bytes each, in part order: what a version-3 chunkList holds. */
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

/** Digest of a manifest's body (every field but `check`). */
export function manifestCheck(m: Omit<Manifest, 'check'>): string {
  const { check: _ignored, ...body } = m as Manifest;
  return createHash('sha256').update(JSON.stringify(body)).digest('hex');
}

/** A manifest and its file text, stringified once (a 128 MiB part lists 32,768 chunks: a second pass costs ~10 ms). */
export function serializeManifest(body: Omit<Manifest, 'check'>): { manifest: Manifest; text: string } {
  const bodyText = JSON.stringify(body);
  const check = createHash('sha256').update(bodyText).digest('hex');
  return { manifest: { ...body, check }, text: `${bodyText.slice(0, -1)},"check":"${check}"}` };
}

/** Parse and self-check a manifest; returns null when it is unreadable or fails its check. */
export function parseManifest(text: string): Manifest | null {
  try {
    const m = JSON.parse(text) as Manifest;
    if (!READABLE_VERSIONS.includes(m.schemaVersion) || typeof m.seq !== 'number' || !Array.isArray(m.parts))
      return null;
    return manifestCheck(m) === m.check ? m : null;
  } catch {
    return null;
  }
}

export function manifestFileName(seq: number): string {
  return `${String(seq).padStart(10, '0')}.json`;
}
