// The LZ4 block decoder as it was before its tuning (harness/store/lz4-block.ts at 1b542c9), kept as the baseline the
// lz4-decode bench measures the current one against (same contract).

/**
 * (Baseline) Decode the first `want` plain bytes of the LZ4-stored block `src` into `dst` from `at`. Returns `want`, or -1 when the
 * block is malformed, declares fewer bytes, ends before `want`, or (decoding all it declares) has input left over
 * (never reads or writes out of bounds; never throws).
 */
export function lz4DecodeV1(src: Uint8Array, dst: Uint8Array, at: number, want: number): number {
  if (src.length < 4) return -1;
  const size = (src[0]! | (src[1]! << 8) | (src[2]! << 16) | (src[3]! << 24)) >>> 0;
  if (want > size || at < 0 || at + want > dst.length) return -1;
  const end = src.length;
  const stop = at + want;
  let ip = 4;
  let op = at;
  let cut = false; // the last copy stopped short at `want`
  while (op < stop) {
    if (ip >= end) return -1;
    const token = src[ip++]!;
    let lit = token >>> 4;
    if (lit === 15) {
      let b = 255;
      while (b === 255) {
        if (ip >= end) return -1;
        b = src[ip++]!;
        lit += b;
      }
    }
    if (ip + lit > end) return -1;
    const nl = Math.min(lit, stop - op);
    cut = nl < lit;
    if (nl < 16) for (let k = 0; k < nl; k++) dst[op + k] = src[ip + k]!;
    else dst.set(src.subarray(ip, ip + nl), op);
    ip += lit;
    op += nl;
    if (op >= stop) break;
    if (ip + 2 > end) return -1; // the block ended (its last sequence is literals only) before `want`
    const off = src[ip]! | (src[ip + 1]! << 8);
    ip += 2;
    if (off === 0 || off > op - at) return -1;
    let ml = token & 15;
    if (ml === 15) {
      let b = 255;
      while (b === 255) {
        if (ip >= end) return -1;
        b = src[ip++]!;
        ml += b;
      }
    }
    const nm = Math.min(ml + 4, stop - op);
    cut = nm < ml + 4;
    const m = op - off;
    // overlapping (off < length) repeats a pattern: byte by byte; short ones too (cheaper than a call)
    if (nm <= 32 || off < nm) for (let k = 0; k < nm; k++) dst[op + k] = dst[m + k]!;
    else dst.copyWithin(op, m, m + nm);
    op += nm;
  }
  // all it declares decoded: the block must end here (a size header damaged to declare too few bytes cuts a copy short
  // or leaves input over)
  if (want === size && (cut || (ip < end && !(ip + 1 === end && src[ip] === 0)))) return -1;
  return want;
}
