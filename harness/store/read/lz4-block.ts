// LZ4 blocks as packs keep them (codec 3): the plain size as a u32le, then one LZ4 block (the format lz4-napi's
// compressSync writes). The decoder is self-contained (no imports, no closures): its source is also part of the read
// pool's worker threads, and it writes into a buffer the caller reuses (no fresh pages to touch, unlike a decoder that
// allocates its output).

/** The plain size an LZ4-stored block declares (its first four bytes, little-endian); -1 if it is too short. */
export function lz4PlainSize(src: Uint8Array): number {
  return src.length < 4 ? -1 : (src[0]! | (src[1]! << 8) | (src[2]! << 16) | (src[3]! << 24)) >>> 0;
}

/** The decoder's own reused buffer (a property of the function, so its source stays self-contained). */
type WithScratch = typeof lz4Decode & { scratch?: Uint8Array };

/**
 * Decode the first `want` plain bytes of the LZ4-stored block `src` into `dst` from `at`. Returns `want`, or -1 when the
 * block is malformed, declares fewer bytes, ends before `want`, or (decoding all it declares) has input left over
 * (never reads or writes out of bounds; never throws). Into a SharedArrayBuffer it decodes in a private buffer first and
 * copies the result over once: V8 copies into shared memory with relaxed atomic stores, byte by byte unless source and
 * destination are alike in word alignment, which most of LZ4's copies are not.
 */
export function lz4Decode(src: Uint8Array, dst: Uint8Array, at: number, want: number): number {
  if (src.length < 4) return -1;
  const size = (src[0]! | (src[1]! << 8) | (src[2]! << 16) | (src[3]! << 24)) >>> 0;
  if (want > size || at < 0 || at + want > dst.length) return -1;
  const self = lz4Decode as WithScratch;
  let out = dst; // where the copies go: dst itself, or the private buffer placed alike in word alignment
  let base = at;
  if (
    want >= 1024 &&
    want <= 1 << 22 &&
    typeof SharedArrayBuffer === 'function' &&
    dst.buffer instanceof SharedArrayBuffer
  ) {
    base = (dst.byteOffset + at) & 7;
    if (self.scratch === undefined || self.scratch.length < base + want)
      self.scratch = new Uint8Array(Math.max(base + want, 1 << 17));
    out = self.scratch;
  }
  const end = src.length;
  const stop = base + want;
  let ip = 4;
  let op = base;
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
    if (nl < 16) for (let k = 0; k < nl; k++) out[op + k] = src[ip + k]!;
    else out.set(src.subarray(ip, ip + nl), op);
    ip += lit;
    op += nl;
    if (op >= stop) break;
    if (ip + 2 > end) return -1; // the block ended (its last sequence is literals only) before `want`
    const off = src[ip]! | (src[ip + 1]! << 8);
    ip += 2;
    if (off === 0 || off > op - base) return -1;
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
    if (nm <= 32) {
      // short: byte by byte (cheaper than a call; also right when it overlaps, off < length, repeating a pattern)
      for (let k = 0; k < nm; k++) out[op + k] = out[m + k]!;
    } else if (off === 1) {
      out.fill(out[m]!, op, op + nm);
    } else {
      // long: whole copies, doubling while it overlaps (after each, [m, op + done) repeats the pattern of period off)
      let done = 0;
      while (done < nm) {
        const n = Math.min(done + off, nm - done);
        out.copyWithin(op + done, m, m + n);
        done += n;
      }
    }
    op += nm;
  }
  // all it declares decoded: the block must end here (a size header damaged to declare too few bytes cuts a copy short
  // or leaves input over)
  if (want === size && (cut || (ip < end && !(ip + 1 === end && src[ip] === 0)))) return -1;
  if (out !== dst) dst.set(out.subarray(base, stop), at);
  return want;
}
