// One unit of read-back work: stored blocks read from their packs, decompressed, and the chunks a read needs from them
// hash-checked. Self-contained (no imports: its source is also the body of the read pool's worker threads); its I/O,
// decompression and hash come in as tools. An LZ4 block is decoded straight into the job's reused output buffer. Jobs
// and results are flat (typed arrays and one string, no object per block or chunk), so they cross to a worker thread
// as a copy of a few arrays, not a structured clone of hundreds of objects.

/** Int32 fields per block in BlockJob.meta: read, at, length, codec, plain, slice count. */
export const BLOCK_FIELDS = 6;

/** A batch of blocks for one worker: the byte ranges of pack files to read, and the blocks within them. */
export interface BlockJob {
  id: number;
  reads: Array<[file: string, offset: number, length: number]>;
  /**
   * BLOCK_FIELDS per stored block (a whole deflate-raw or LZ4 block, or one raw chunk): which of the reads holds it,
   * where in that read it starts, its stored length, how it is stored (pack-index.ts Codec: 0 raw, 2 deflate-raw, 3
   * LZ4), its plain size as far as the read knows it (the end of the last chunk it wants: the bytes to decompress),
   * and how many of its chunks to check (their slices follow the previous block's in `slices`).
   */
  meta: Int32Array;
  /** [inner, length] of each chunk to check, block after block. */
  slices: Int32Array;
  /** Each checked chunk's expected SHA-256, 64 hex digits each, one per slice pair. */
  hashes: string;
  /** Where to put the blocks' plain bytes, one after another (reused by the reader: no fresh pages); a block that does not fit gets a buffer of its own. */
  out?: SharedArrayBuffer;
  /**
   * Write each checked chunk into open file `fd` instead of handing its bytes back (part-into.ts): chunk (slice) s goes
   * to the file offsets `at[from[s]]` up to `at[from[s + 1]]`, a chunk that fails its check nowhere. Blocks come back
   * with place -3 (written); `out` is not used.
   */
  dest?: { fd: number; at: Float64Array; from: Int32Array };
}

/** Where each block's plain bytes went, and which checks failed. */
export interface BlockResult {
  id: number;
  /** Per block [at, length]: at >= 0 its offset in the job's `out`; -1 unreadable; -2 the next buffer of `own`. */
  places: Int32Array;
  /** The plain bytes of blocks that did not go into `out`, in block order. */
  own: Uint8Array[];
  /** [block, slice] of every chunk whose bytes did not hash to its name (slice -1: the block could not be read or decompressed). */
  bad: number[];
  /** SHA-256 computations done (one per checked chunk). */
  hashed: number;
  /** With `dest`: why a write into the file failed (nothing after it was written). */
  writeError?: string;
}

/** Read, decompress and hash as the caller's fs, zlib and crypto do it (passed in so the worker needs no module of ours). */
export interface JobTools {
  /** `length` bytes of `file` from `offset` (the job's read number `slot`: a tool may reuse its buffer next job); null if unreadable or short. */
  read(file: string, offset: number, length: number, slot: number): Uint8Array | null;
  /** Inflate-raw `data`, whose plain size is likely `size` (one output buffer of that size, no copying together). */
  inflate(data: Uint8Array, size: number): Uint8Array;
  /** Decode the first `want` bytes of LZ4-stored `data` into `into` from `at` (lz4-block.ts lz4Decode): `want`, or -1. */
  lz4(data: Uint8Array, into: Uint8Array, at: number, want: number): number;
  /** Decode the first `want` bytes of LZ4-stored `data` into a buffer of their own (the native decoder's, as it is); null if malformed. */
  lz4Own(data: Uint8Array, want: number): Uint8Array | null;
  sha256hex(data: Uint8Array): string;
  /** Write all of `data` into open file `fd` at `position`: null, or why not. */
  write(fd: number, data: Uint8Array, position: number): string | null;
}

/** Read and decompress each block, hash each listed chunk, report mismatches (never throws on bad data). */
export function runBlockJob(job: BlockJob, tools: JobTools): BlockResult {
  const reads = job.reads.map(([file, offset, length], slot) => tools.read(file, offset, length, slot));
  // fields in locals: a job's shape varies (with or without `out`), so no property load per chunk
  const { meta, slices, hashes, dest } = job;
  const out = dest === undefined ? job.out : undefined;
  let writeError: string | undefined;
  // with `dest`: the run of checked bytes waiting to be written in one call (consecutive in the block and the file)
  let runFrom = 0;
  let runTo = 0;
  let runAt = -1;
  let runSrc: Uint8Array | null = null;
  const flush = (): void => {
    if (runSrc !== null && runAt >= 0 && writeError === undefined)
      writeError = tools.write(dest!.fd, runSrc.subarray(runFrom, runTo), runAt) ?? undefined;
    runAt = -1;
  };
  const count = meta.length / 6; // BLOCK_FIELDS (no outside names: this source runs alone in the workers)
  const places = new Int32Array(2 * count);
  const own: Uint8Array[] = [];
  const bad: number[] = [];
  let hashed = 0;
  let used = 0;
  let s = 0;
  for (let b = 0; b < count; b++) {
    const read = meta[6 * b]!;
    const at = meta[6 * b + 1]!;
    const length = meta[6 * b + 2]!;
    const codec = meta[6 * b + 3]!;
    const size = meta[6 * b + 4]!;
    const checks = meta[6 * b + 5]!;
    const src = reads[read];
    let plain: Uint8Array | null = null;
    let place = -2;
    const stored = src && at + length <= src.length ? src.subarray(at, at + length) : null;
    // an LZ4 block is decoded straight into `out` when it fits, else into a buffer of its own (no helper function:
    // this function's source alone runs in the workers)
    const fits = out !== undefined && used + size <= out.byteLength;
    if (stored !== null && codec === 3 && dest !== undefined) {
      plain = tools.lz4Own(stored, size); // written out before the next block: no copy into a buffer of the job's
    } else if (stored !== null && codec === 3) {
      const into = fits ? new Uint8Array(out, used, size) : new Uint8Array(size);
      plain = tools.lz4(stored, into, 0, size) === size ? into : null;
      if (plain !== null && fits) {
        place = used;
        used += size;
      }
    } else if (stored !== null) {
      try {
        plain = codec === 2 ? tools.inflate(stored, size) : stored;
      } catch {
        plain = null;
      }
      // into `out` when it fits, else a copy of its own (a raw block is a view of the read's buffer, reused next job)
      if (plain !== null && out !== undefined && used + plain.length <= out.byteLength) {
        const into = new Uint8Array(out, used, plain.length);
        into.set(plain);
        plain = into;
        place = used;
        used += plain.length;
      } else if (plain !== null && plain === stored && dest === undefined) plain = new Uint8Array(stored);
    }
    if (plain === null) {
      places[2 * b] = -1;
      bad.push(b, -1);
      s += checks;
      continue;
    }
    places[2 * b] = dest === undefined ? place : -3;
    places[2 * b + 1] = plain.length;
    if (place === -2 && dest === undefined) own.push(plain);
    for (let k = 0; k < checks; k++, s++) {
      const inner = slices[2 * s]!;
      const end = inner + slices[2 * s + 1]!;
      hashed++;
      const ok =
        end <= plain.length && tools.sha256hex(plain.subarray(inner, end)) === hashes.slice(64 * s, 64 * s + 64);
      if (!ok) bad.push(b, k);
      if (!ok || dest === undefined) continue;
      for (let j = dest.from[s]!; j < dest.from[s + 1]!; j++) {
        const to = dest.at[j]!;
        if (runAt >= 0 && runSrc === plain && runTo === inner && runAt + (runTo - runFrom) === to) runTo = end;
        else {
          flush();
          runSrc = plain;
          runFrom = inner;
          runTo = end;
          runAt = to;
        }
      }
    }
    flush();
  }
  return writeError === undefined
    ? { id: job.id, places, own, bad, hashed }
    : { id: job.id, places, own, bad, hashed, writeError };
}

/** The parts of Node's fs, zlib and crypto the tools use. */
export interface ToolModules {
  fs: {
    openSync(file: string, flags: string): number;
    readSync(fd: number, buf: Uint8Array, off: number, len: number, pos: number): number;
    closeSync(fd: number): void;
    writeSync(fd: number, buf: Uint8Array, off: number, len: number, pos: number): number;
  };
  zlib: { inflateRawSync(data: Uint8Array, opts: { chunkSize: number }): Uint8Array };
  crypto: { hash(algorithm: string, data: Uint8Array, encoding: 'hex'): string };
  /** lz4-block.ts lz4Decode (in a worker: its source). */
  lz4Decode(src: Uint8Array, dst: Uint8Array, at: number, want: number): number;
  /** lz4-napi's native block decoder (size-prefixed, as packs keep blocks), when loaded (read-pool.ts lz4Native). */
  lz4Native?: ((src: Uint8Array) => Uint8Array) | undefined;
}

/** JobTools over Node's modules; each read slot keeps its buffer from job to job (no fresh pages to touch). */
export function makeTools(m: ToolModules): JobTools {
  const scratch: Uint8Array[] = [];
  /** The native decoder's first `want` bytes of `d`, if it decodes `d` to the size `d` declares (at least `want`). */
  const native = (d: Uint8Array, want: number): Uint8Array | undefined => {
    if (m.lz4Native === undefined || d.length < 4) return undefined;
    let out: Uint8Array | undefined;
    try {
      out = m.lz4Native(d);
    } catch {
      return undefined;
    }
    const size = (d[0]! | (d[1]! << 8) | (d[2]! << 16) | (d[3]! << 24)) >>> 0;
    if (out.length !== size || want > size) return undefined;
    return want === size ? out : out.subarray(0, want);
  };
  return {
    read(file, offset, length, slot) {
      let buf = scratch[slot];
      if (buf === undefined || buf.length < length) buf = scratch[slot] = new Uint8Array(Math.max(length, 1 << 20));
      let fd: number;
      try {
        fd = m.fs.openSync(file, 'r');
      } catch {
        return null;
      }
      try {
        return m.fs.readSync(fd, buf, 0, length, offset) === length ? buf.subarray(0, length) : null;
      } catch {
        return null;
      } finally {
        m.fs.closeSync(fd);
      }
    },
    inflate: (d, size) => m.zlib.inflateRawSync(d, { chunkSize: Math.max(size, 1024) }),
    lz4(d, into, at, want) {
      // the native decoder first (faster than the JS one on a guest's RAM, whose matches are short: bench/README.md
      // "resume-floor"); a block it refuses or decodes to another size than declared is judged by the JS decoder, which
      // says -1 for anything malformed. Either way every chunk cut from the bytes is then hash-checked.
      const out = native(d, want);
      if (out !== undefined && at >= 0 && at + want <= into.length) {
        into.set(out, at);
        return want;
      }
      return m.lz4Decode(d, into, at, want);
    },
    lz4Own(d, want) {
      const out = native(d, want);
      if (out !== undefined) return out;
      const into = new Uint8Array(want);
      return m.lz4Decode(d, into, 0, want) === want ? into : null;
    },
    sha256hex: (d) => m.crypto.hash('sha256', d, 'hex'),
    write(fd, data, position) {
      try {
        for (let o = 0; o < data.length;) {
          const n = m.fs.writeSync(fd, data, o, data.length - o, position + o);
          if (n <= 0) return `wrote nothing at ${position + o}`;
          o += n;
        }
        return null;
      } catch (err) {
        return err instanceof Error ? err.message : String(err);
      }
    },
  };
}
