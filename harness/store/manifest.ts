// Checkpoint manifests: the committed, self-checking record of one checkpoint's parts and their chunks.
import { createHash } from 'node:crypto';

/** 2 added PartEntry.layout; version 1 manifests (no layouts) still read. */
export const MANIFEST_SCHEMA_VERSION = 2;
const READABLE_VERSIONS: readonly number[] = [1, 2];

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
  newChunks: number;
  meta: Record<string, number | string>;
  /** sha256 of the manifest body without this field. */
  check: string;
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
    if (!READABLE_VERSIONS.includes(m.schemaVersion) || typeof m.seq !== 'number' || !Array.isArray(m.parts)) return null;
    return manifestCheck(m) === m.check ? m : null;
  } catch {
    return null;
  }
}

export function manifestFileName(seq: number): string {
  return `${String(seq).padStart(10, '0')}.json`;
}
