// A chunk's name: the SHA-256 of its bytes.
import { hash } from 'node:crypto';

/** SHA-256 as hex; the one-shot crypto.hash is faster than createHash on 4 KiB chunks. */
export function sha256(data: Uint8Array): string {
  return hash('sha256', data, 'hex');
}

/** A 4 KiB page of zeros, and its name. */
const ZERO_PAGE = new Uint8Array(4096);
export const ZERO_PAGE_SHA256 = sha256(ZERO_PAGE);

/**
 * A chunk's name as sha256() gives it; an all-zero 4 KiB page is recognised by comparing (a memcmp, several times
 * cheaper than hashing) and named by its known hash: most of a guest's RAM image is such pages.
 */
export function chunkName(data: Uint8Array): string {
  return data.length === ZERO_PAGE.length && Buffer.compare(data, ZERO_PAGE) === 0 ? ZERO_PAGE_SHA256 : sha256(data);
}
