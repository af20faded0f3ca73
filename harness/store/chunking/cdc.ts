// Content-defined chunking (gear hash with normalised chunking, after FastCDC, Xia et al. 2016): boundaries follow
// the content, so bytes inserted or shifted upstream (a QEMU migration stream's 8-byte page headers) do not move every
// later boundary the way fixed 4 KiB chunks do. Average ~4 KiB, min 1 KiB, max 16 KiB (CDC_4K); a page-split
// stream's meta uses ~1 KiB chunks (CDC_1K), where one changed page header costs a quarter as much.
import { createRng } from '../../stats/random.js';

/** Chunk size bounds and masks; a mask is harder before the average size, easier after it (sizes cluster near it). */
export interface CdcParams {
  min: number;
  avg: number;
  max: number;
  maskSmall: number;
  maskLarge: number;
}

/** ~4 KiB: masks of 15 and 11 bits. */
export const CDC_4K: CdcParams = {
  min: 1024,
  avg: 4096,
  max: 16384,
  maskSmall: 0xfffe0000 >>> 0,
  maskLarge: 0xffe00000 >>> 0,
};
/** ~1 KiB: masks of 12 and 8 bits. */
export const CDC_1K: CdcParams = {
  min: 256,
  avg: 1024,
  max: 4096,
  maskSmall: 0xfff00000 >>> 0,
  maskLarge: 0xff000000 >>> 0,
};

export const CDC_MIN = CDC_4K.min;
export const CDC_AVG = CDC_4K.avg;
export const CDC_MAX = CDC_4K.max;

/** The gear table: 256 fixed pseudo-random 32-bit values (a constant: changing it changes every boundary). */
const GEAR = (() => {
  const rng = createRng(0x6765_6172);
  const t = new Uint32Array(256);
  for (let i = 0; i < 256; i++) t[i] = rng.uint32();
  return t;
})();

/** Length of the first chunk of `buf[start..end)`; `end - start` when no boundary is found before `end` (and < max). */
export function cutPoint(buf: Uint8Array, start: number, end: number, p: CdcParams = CDC_4K): number {
  const n = end - start;
  if (n <= p.min) return n;
  const limit = Math.min(n, p.max);
  const normal = Math.min(limit, p.avg);
  const { maskSmall, maskLarge } = p;
  let h = 0;
  let i = p.min;
  for (; i < normal; i++) {
    h = ((h << 1) + GEAR[buf[start + i]!]!) >>> 0;
    if ((h & maskSmall) === 0) return i + 1;
  }
  for (; i < limit; i++) {
    h = ((h << 1) + GEAR[buf[start + i]!]!) >>> 0;
    if ((h & maskLarge) === 0) return i + 1;
  }
  return limit;
}
