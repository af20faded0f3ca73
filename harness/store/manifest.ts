// Checkpoint manifests: the committed, self-checking record of one checkpoint's parts and their chunks.
import { jsonSealHolds, sealJson } from './sealed-file.js';

/**
 * 2 added PartEntry.layout. 3 moved the chunk lists out of the file into the store: `chunkList` names chunks that hold
 * every part's chunk hashes (32 bytes each, in part order), so a list that barely changes from one checkpoint to the
 * next dedups like data. 4 cuts the list between hashes (chunk-list.ts: ~16 hashes a leaf) and stores a second level
 * naming the leaves; `chunkList` names the second level's chunks, so a changed page costs one ~512-byte leaf.
 * Versions 1 to 3 still read.
 */
export const MANIFEST_SCHEMA_VERSION = 4;
const READABLE_VERSIONS: readonly number[] = [1, 2, 3, 4];

/** One named part of a checkpoint: its size and the chunks that hold it. */
export interface PartEntry {
  name: string;
  /** Logical bytes: the part as the target handed it over (for a migration stream, the stream's size). */
  size: number;
  /** Every chunk the part needs, in layout order (verify and gc need nothing else). */
  chunks: string[];
  /** Absent: the part is its chunks concatenated. */
  layout?: PagesLayout;
  /**
   * SHA-256 (hex) of the part's logical bytes, hashed by the writer from the bytes it chunked; a reader rebuilding the
   * whole part checks it, and a hot local copy is trusted only if it hashes to it. Absent in older manifests.
   */
  sha256?: string;
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

/** The fields every manifest has, in the file and in memory. */
interface ManifestFields {
  schemaVersion: number;
  seq: number;
  step: number;
  createdAt: string;
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
  /** sha256 of the manifest body without this field (sealed-file.ts: sealed JSON). */
  check: string;
}

/** A part as a version-3+ file has it: its chunk hashes live in the manifest's chunk list. */
export type StoredPart = Omit<PartEntry, 'chunks'> & { count: number };

/** A version 1-2 manifest file: each part lists its chunks inline. */
export interface InlineManifestFile extends ManifestFields {
  parts: PartEntry[];
  chunkList?: undefined;
}

/**
 * A version 3+ manifest file: parts carry counts; `chunkList` names the chunks that hold the parts' chunk hashes
 * (version 3) or the hashes of those chunks (version 4: a second level; see MANIFEST_SCHEMA_VERSION).
 */
export interface ListedManifestFile extends ManifestFields {
  parts: StoredPart[];
  chunkList: string[];
}

/** A manifest file as parsed (self-checked, not yet resolved against the store). */
export type ManifestFile = InlineManifestFile | ListedManifestFile;

/** A checkpoint's manifest in memory: every part with its chunk hashes. */
export interface Manifest extends ManifestFields {
  parts: PartEntry[];
  /** Version 3+: the top level of the chunk list, as in the file. */
  chunkList?: string[];
  /** Not in the file: every chunk the chunk list occupies (both levels), filled in when it is read. */
  listChunks?: string[];
  /** Not in the file: set when the chunk list cannot be read (missing or corrupt chunk); the parts' chunks are then empty. */
  broken?: string;
}

/** A manifest file and its text, sealed (sealed-file.ts: its digest is the last field, `check`), stringified once. */
export function serializeManifest(body: Omit<ListedManifestFile, 'check'>): { file: ListedManifestFile; text: string } {
  const { text, check } = sealJson(body);
  return { file: { ...body, check }, text };
}

/** Parse and self-check a manifest file: the manifest, or what is wrong with it (truncated, garbage, edited...). */
export function inspectManifest(text: string): ManifestFile | { problem: string } {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return { problem: `is not whole JSON (${text.length} bytes: truncated or garbage)` };
  }
  if (typeof raw !== 'object' || raw === null) return { problem: 'is not a JSON object' };
  const m = raw as ManifestFile;
  if (!READABLE_VERSIONS.includes(m.schemaVersion))
    return {
      problem: `has schemaVersion ${JSON.stringify(m.schemaVersion)} (readable: ${READABLE_VERSIONS.join(', ')})`,
    };
  if (typeof m.seq !== 'number' || !Array.isArray(m.parts)) return { problem: 'lacks its seq or parts fields' };
  if (!jsonSealHolds(m)) return { problem: 'fails its check (a field was edited or a bit flipped)' };
  return m;
}

/** Parse and self-check a manifest file; returns null when it is unreadable or fails its check. */
export function parseManifest(text: string): ManifestFile | null {
  const m = inspectManifest(text);
  return 'problem' in m ? null : m;
}

/** The file name of checkpoint `seq`'s manifest: ten digits, so names sort in checkpoint order. */
export function manifestFileName(seq: number): string {
  return `${String(seq).padStart(10, '0')}.json`;
}
