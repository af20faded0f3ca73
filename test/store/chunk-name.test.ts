// A chunk's name (sha256.ts chunkName): an all-zero 4 KiB page is named by comparison, not hashed, and must come out
// exactly as hashing it would; a page differing from zero in its last byte, or zeros of another length, are hashed
// (negative controls: a compare that stopped early, or ignored the length, would name them as the zero page).
import { describe, expect, it } from 'vitest';
import { chunkName, sha256, ZERO_PAGE_SHA256 } from '../../harness/store/sha256.js';

describe('chunkName', () => {
  it('names a zero page by its SHA-256 without a difference from hashing it', () => {
    const zero = new Uint8Array(4096);
    expect(ZERO_PAGE_SHA256).toBe(sha256(zero));
    expect(chunkName(zero)).toBe(sha256(zero));
    expect(chunkName(Buffer.alloc(4096))).toBe(ZERO_PAGE_SHA256);
  });

  it('negative controls: a page non-zero in its last byte, zeros of another size', () => {
    const last = new Uint8Array(4096);
    last[4095] = 1;
    expect(chunkName(last)).toBe(sha256(last));
    expect(chunkName(last)).not.toBe(ZERO_PAGE_SHA256);
    for (const n of [0, 4095, 4097, 8192]) {
      const z = new Uint8Array(n);
      expect(chunkName(z)).toBe(sha256(z));
      expect(chunkName(z)).not.toBe(ZERO_PAGE_SHA256);
    }
  });
});
