// Content-defined chunking (gear hash with normalised chunking, after FastCDC, Xia et al. 2016): boundaries follow
// the content, so bytes inserted or shifted upstream (a QEMU migration stream's 8-byte page headers) do not move every
// later boundary the way fixed 4 KiB chunks do. Average ~4 KiB, min 1 KiB, max 16 KiB.
import { createRng } from '../stats/random.js';

export const CDC_MIN = 1024;
export const CDC_AVG = 4096;
export const CDC_MAX = 16384;
/** Harder mask before the average size (15 bits), easier after it (11 bits): chunk sizes cluster near the average. */
const MASK_SMALL = 0xfffe0000 >>> 0;
const MASK_LARGE = 0xffe00000 >>> 0;

/** The gear table: 256 fixed pseudo-random 32-bit values (a constant: changing it changes every boundary). */
const GEAR = (() => {
  const rng = createRng(0x6765_6172);
  const t = new Uint32Array(256);
  for (let i = 0; i < 256; i++) t[i] = rng.uint32();
  return t;
})();

/** Length of the first chunk of `buf[start..end)`; `end - start` when no boundary is found before `end` (and < max). */
export function cutPoint(buf: Uint8Array, start: number, end: number): number {
  const n = end - start;
  if (n <= CDC_MIN) return n;
  const limit = Math.min(n, CDC_MAX);
  const normal = Math.min(limit, CDC_AVG);
  let h = 0;
  let i = CDC_MIN;
  for (; i < normal; i++) {
    h = ((h << 1) + GEAR[buf[start + i]!]!) >>> 0;
    if ((h & MASK_SMALL) === 0) return i + 1;
  }
  for (; i < limit; i++) {
    h = ((h << 1) + GEAR[buf[start + i]!]!) >>> 0;
    if ((h & MASK_LARGE) === 0) return i + 1;
  }
  return limit;
}
