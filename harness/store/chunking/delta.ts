// Sub-page dedup: a new guest page that differs from the same page of the previous checkpoint in a few places (a
// counter, a list pointer, a timestamp) is stored as the 256-byte blocks that differ from that base chunk, not as
// 4 KiB. Content addressing is unchanged: the chunk is still named by the SHA-256 of the whole page, and every read
// rebuilds it from the base and checks that hash. Bases are always stored whole (one level, so a read costs at most
// two chunk reads), and gc keeps the base of every live delta.
//
// Stored form: a bitmap (bit i set: block i differs; ceil(blocks / 8) bytes), then the differing blocks in order.

export const DELTA_BLOCK = 256;

/** Store a delta only when it is at most this fraction of the chunk (else the chunk is stored whole). */
const MAX_FRACTION = 0.5;

/** The delta of `data` against `base` (same length), or null when it would not save enough. */
export function encodeDelta(data: Uint8Array, base: Uint8Array): Buffer | null {
  if (data.length !== base.length || data.length === 0) return null;
  const blocks = Math.ceil(data.length / DELTA_BLOCK);
  const mapBytes = Math.ceil(blocks / 8);
  const limit = data.length * MAX_FRACTION;
  const differ: number[] = [];
  let size = mapBytes;
  for (let i = 0; i < blocks; i++) {
    const from = i * DELTA_BLOCK;
    const to = Math.min(from + DELTA_BLOCK, data.length);
    if (Buffer.compare(data.subarray(from, to), base.subarray(from, to)) === 0) continue;
    differ.push(i);
    size += to - from;
    if (size > limit) return null;
  }
  const out = Buffer.alloc(size);
  let at = mapBytes;
  for (const i of differ) {
    out[i >> 3]! |= 1 << (i & 7);
    const from = i * DELTA_BLOCK;
    const to = Math.min(from + DELTA_BLOCK, data.length);
    out.set(data.subarray(from, to), at);
    at += to - from;
  }
  return out;
}

/** Rebuild a chunk from its base and its stored delta; null when the delta does not fit the base (corrupt). */
export function applyDelta(base: Uint8Array, delta: Uint8Array): Buffer | null {
  const blocks = Math.ceil(base.length / DELTA_BLOCK);
  const mapBytes = Math.ceil(blocks / 8);
  if (delta.length < mapBytes) return null;
  const out = Buffer.from(base);
  let at = mapBytes;
  for (let i = 0; i < blocks; i++) {
    if (!(delta[i >> 3]! & (1 << (i & 7)))) continue;
    const from = i * DELTA_BLOCK;
    const to = Math.min(from + DELTA_BLOCK, base.length);
    if (at + (to - from) > delta.length) return null;
    out.set(delta.subarray(at, at + (to - from)), from);
    at += to - from;
  }
  // Bits past the last block, or bytes left over, mean the delta was not made for a base of this length.
  if (at !== delta.length || (blocks & 7 && delta[mapBytes - 1]! >> (blocks & 7))) return null;
  return out;
}
