// One unit of read-back work: stored blocks read from their packs, decompressed, and the chunks a read needs from them
// hash-checked. Self-contained (no imports: its source is also the body of the read pool's worker threads); its I/O,
// decompression and hash come in as tools. An LZ4 block is decoded straight into the job's reused output buffer.

/** A stored block (a whole deflate-raw or LZ4 block, or one raw chunk) within one of the job's reads, and the chunks to check. */
export interface JobBlock {
  /** Which of the job's reads holds it, where in that read it starts, and its stored length. */
  read: number;
  at: number;
  length: number;
  /** How it is stored (pack-index.ts Codec): 0 raw, 2 deflate-raw, 3 LZ4. */
  codec: number;
  /** The block's plain size as far as the read knows it (the end of the last chunk it wants): the bytes to decompress. */
  plain: number;
  /** [inner, length] of each chunk to check, flattened. */
  slices: number[];
  /** Each checked chunk's expected SHA-256 (hex), one per slice pair. */
  hashes: string[];
}

/** A batch of blocks for one worker: the byte ranges of pack files to read, and the blocks within them. */
export interface BlockJob {
  id: number;
  reads: Array<[file: string, offset: number, length: number]>;
  blocks: JobBlock[];
  /** Where to put the blocks' plain bytes, one after another (reused by the reader: no fresh pages); a block that does not fit gets a buffer of its own. */
  out?: SharedArrayBuffer;
}

/** The blocks' plain bytes, in job order, each in a buffer of its own (null: unreadable), and which checks failed. */
export interface BlockResult {
  id: number;
  blocks: Array<Uint8Array | null>;
  /** [block, slice] of every chunk whose bytes did not hash to its name (slice -1: the block could not be read or decompressed). */
  bad: number[];
  /** SHA-256 computations done (one per checked chunk). */
  hashed: number;
}

/** Read, decompress and hash as the caller's fs, zlib and crypto do it (passed in so the worker needs no module of ours). */
export interface JobTools {
  /** `length` bytes of `file` from `offset` (the job's read number `slot`: a tool may reuse its buffer next job); null if unreadable or short. */
  read(file: string, offset: number, length: number, slot: number): Uint8Array | null;
  /** Inflate-raw `data`, whose plain size is likely `size` (one output buffer of that size, no copying together). */
  inflate(data: Uint8Array, size: number): Uint8Array;
  /** Decode the first `want` bytes of LZ4-stored `data` into `into` from `at` (lz4-block.ts lz4Decode): `want`, or -1. */
  lz4(data: Uint8Array, into: Uint8Array, at: number, want: number): number;
  sha256hex(data: Uint8Array): string;
}

/** Read and decompress each block, hash each listed chunk, report mismatches (never throws on bad data). */
export function runBlockJob(job: BlockJob, tools: JobTools): BlockResult {
  const reads = job.reads.map(([file, offset, length], slot) => tools.read(file, offset, length, slot));
  const out: Array<Uint8Array | null> = [];
  const bad: number[] = [];
  let hashed = 0;
  let used = 0;
  for (let b = 0; b < job.blocks.length; b++) {
    const block = job.blocks[b]!;
    const src = reads[block.read];
    let plain: Uint8Array | null = null;
    const stored =
      src && block.at + block.length <= src.length ? src.subarray(block.at, block.at + block.length) : null;
    // an LZ4 block is decoded straight into `out` when it fits, else into a buffer of its own (no helper function:
    // this function's source alone runs in the workers)
    const fits = job.out !== undefined && used + block.plain <= job.out.byteLength;
    if (stored !== null && block.codec === 3) {
      const into = fits ? new Uint8Array(job.out!, used, block.plain) : new Uint8Array(block.plain);
      plain = tools.lz4(stored, into, 0, block.plain) === block.plain ? into : null;
      if (plain !== null && fits) used += block.plain;
    } else if (stored !== null) {
      try {
        plain = block.codec === 2 ? tools.inflate(stored, block.plain) : stored;
      } catch {
        plain = null;
      }
      // into `out` when it fits, else a copy of its own (a raw block is a view of the read's buffer, reused next job)
      if (plain !== null && job.out !== undefined && used + plain.length <= job.out.byteLength) {
        const into = new Uint8Array(job.out, used, plain.length);
        into.set(plain);
        used += plain.length;
        plain = into;
      } else if (plain !== null && plain === stored) plain = new Uint8Array(stored);
    }
    out.push(plain);
    if (plain === null) {
      bad.push(b, -1);
      continue;
    }
    for (let s = 0; s < block.hashes.length; s++) {
      const inner = block.slices[2 * s]!;
      const length = block.slices[2 * s + 1]!;
      hashed++;
      const ok =
        inner + length <= plain.length && tools.sha256hex(plain.subarray(inner, inner + length)) === block.hashes[s];
      if (!ok) bad.push(b, s);
    }
  }
  return { id: job.id, blocks: out, bad, hashed };
}

/** The parts of Node's fs, zlib and crypto the tools use. */
export interface ToolModules {
  fs: {
    openSync(file: string, flags: string): number;
    readSync(fd: number, buf: Uint8Array, off: number, len: number, pos: number): number;
    closeSync(fd: number): void;
  };
  zlib: { inflateRawSync(data: Uint8Array, opts: { chunkSize: number }): Uint8Array };
  crypto: { hash(algorithm: string, data: Uint8Array, encoding: 'hex'): string };
  /** lz4-block.ts lz4Decode (in a worker: its source). */
  lz4Decode(src: Uint8Array, dst: Uint8Array, at: number, want: number): number;
}

/** JobTools over Node's modules; each read slot keeps its buffer from job to job (no fresh pages to touch). */
export function makeTools(m: ToolModules): JobTools {
  const scratch: Uint8Array[] = [];
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
    lz4: (d, into, at, want) => m.lz4Decode(d, into, at, want),
    sha256hex: (d) => m.crypto.hash('sha256', d, 'hex'),
  };
}
