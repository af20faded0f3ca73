// Checkpoint manifests: the committed, self-checking record of one checkpoint's parts and their chunks.
import { createHash } from 'node:crypto';

export const MANIFEST_SCHEMA_VERSION = 1;

export interface PartEntry {
  name: string;
  size: number;
  chunks: string[];
}

export interface Manifest {
  schemaVersion: typeof MANIFEST_SCHEMA_VERSION;
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

/** Parse and self-check a manifest; returns null when it is unreadable or fails its check. */
export function parseManifest(text: string): Manifest | null {
  try {
    const m = JSON.parse(text) as Manifest;
    if (m.schemaVersion !== MANIFEST_SCHEMA_VERSION || typeof m.seq !== 'number' || !Array.isArray(m.parts)) return null;
    return manifestCheck(m) === m.check ? m : null;
  } catch {
    return null;
  }
}

export function manifestFileName(seq: number): string {
  return `${String(seq).padStart(10, '0')}.json`;
}
