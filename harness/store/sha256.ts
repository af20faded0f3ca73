// A chunk's name: the SHA-256 of its bytes.
import { hash } from 'node:crypto';

/** SHA-256 as hex; the one-shot crypto.hash is faster than createHash on 4 KiB chunks. */
export function sha256(data: Uint8Array): string {
  return hash('sha256', data, 'hex');
}
