// Sealed files: a body followed by its SHA-256, so a torn or altered file is refused, never half read. Binary: the
// digest's 32 bytes follow the body (pack indexes, the consolidated chunk index). JSON: the digest of the body's text
// is its last field, "check" (manifests, version-1 pack indexes). The one writer and reader of both.
import { createHash } from 'node:crypto';

/** Bytes of the digest that ends a binary sealed file. */
export const SEAL_BYTES = 32;

const sha256 = (data: Uint8Array | string): Buffer => createHash('sha256').update(data).digest();

/** `body` followed by its SHA-256. */
export function seal(body: Uint8Array): Buffer {
  return Buffer.concat([body, sha256(body)]);
}

/** Write the SHA-256 of all but the last SEAL_BYTES of `buf` into them (a file built in one buffer with room for it). */
export function sealInPlace(buf: Buffer): Buffer {
  sha256(buf.subarray(0, buf.length - SEAL_BYTES)).copy(buf, buf.length - SEAL_BYTES);
  return buf;
}

/** Why sealed bytes are refused: too short to hold their digest, or a digest that does not match (torn or altered). */
export type SealProblem = 'too short for its SHA-256' | 'fails its SHA-256 check (truncated or altered)';

/** The body of binary sealed bytes (a view, no copy), or why they are refused. */
export function unseal(buf: Buffer): Buffer | SealProblem {
  if (buf.length < SEAL_BYTES) return 'too short for its SHA-256';
  const body = buf.subarray(0, buf.length - SEAL_BYTES);
  return sha256(body).equals(buf.subarray(buf.length - SEAL_BYTES))
    ? body
    : 'fails its SHA-256 check (truncated or altered)';
}

/** The digest a sealed JSON object carries in "check": the SHA-256 (hex) of its text without that field. */
export function jsonSeal(obj: object): string {
  const body: Record<string, unknown> = { ...obj };
  delete body.check;
  return sha256(JSON.stringify(body)).toString('hex');
}

/** `body` as sealed JSON text (stringified once: a manifest may list tens of thousands of chunks) and its digest. */
export function sealJson(body: object): { text: string; check: string } {
  const text = JSON.stringify(body);
  const check = sha256(text).toString('hex');
  const open = text === '{}' ? '{' : `${text.slice(0, -1)},`;
  return { text: `${open}"check":${JSON.stringify(check)}}`, check };
}

/** Whether a parsed sealed JSON object's "check" matches its other fields (in their order in the file). */
export function jsonSealHolds(obj: { check?: unknown }): boolean {
  return typeof obj.check === 'string' && jsonSeal(obj) === obj.check;
}
