// Block jobs and their results as they cross to and from a read worker: flat typed arrays and one string instead of an
// object per block and a string per chunk, so posting a job costs the reading thread a copy, not a structured clone
// of hundreds of objects. Self-contained (no imports): the worker runs these functions' own source.
import type { BlockJob, BlockResult, JobBlock } from './block-job.js';

/** A BlockJob flattened: per block [read, at, length, codec, plain, slice count] in `meta`, slices in `slices`, hashes joined. */
export interface WireJob {
  id: number;
  reads: BlockJob['reads'];
  meta: Int32Array;
  slices: Int32Array;
  hashes: string;
  out?: SharedArrayBuffer;
}

/** A BlockResult flattened: per block its offset in the job's `out` (-1: unreadable, -2: the next of `own`) and length. */
export interface WireResult {
  id: number;
  places: Int32Array;
  own: Uint8Array[];
  bad: number[];
  hashed: number;
}

/** The wire form of a job (on the reading thread). */
export function toWire(job: BlockJob): WireJob {
  const meta = new Int32Array(job.blocks.length * 6);
  let count = 0;
  for (const b of job.blocks) count += b.slices.length;
  const slices = new Int32Array(count);
  const hashes: string[] = [];
  let s = 0;
  job.blocks.forEach((b, i) => {
    meta.set([b.read, b.at, b.length, b.codec, b.plain, b.slices.length / 2], i * 6);
    slices.set(b.slices, s);
    s += b.slices.length;
    for (const h of b.hashes) hashes.push(h);
  });
  const wire: WireJob = { id: job.id, reads: job.reads, meta, slices, hashes: hashes.join('') };
  if (job.out !== undefined) wire.out = job.out;
  return wire;
}

/** The job a wire form describes (in the worker). Hashes are 64 hex digits each. */
export function fromWire(wire: WireJob): BlockJob {
  const blocks: JobBlock[] = [];
  let s = 0;
  for (let i = 0; i < wire.meta.length; i += 6) {
    const n = wire.meta[i + 5]!;
    const hashes: string[] = [];
    for (let k = 0; k < n; k++) hashes.push(wire.hashes.slice((s / 2 + k) * 64, (s / 2 + k + 1) * 64));
    blocks.push({
      read: wire.meta[i]!,
      at: wire.meta[i + 1]!,
      length: wire.meta[i + 2]!,
      codec: wire.meta[i + 3]!,
      plain: wire.meta[i + 4]!,
      slices: Array.from(wire.slices.subarray(s, s + 2 * n)),
      hashes,
    });
    s += 2 * n;
  }
  const job: BlockJob = { id: wire.id, reads: wire.reads, blocks };
  if (wire.out !== undefined) job.out = wire.out;
  return job;
}

/** The wire form of a result (in the worker): blocks in `out` by place; any other goes in `own`, moved, not copied. */
export function resultToWire(r: BlockResult, out: SharedArrayBuffer | undefined): WireResult {
  const places = new Int32Array(r.blocks.length * 2);
  const own: Uint8Array[] = [];
  r.blocks.forEach((b, i) => {
    if (b === null) places[2 * i] = -1;
    else if (out !== undefined && b.buffer === out) places.set([b.byteOffset, b.byteLength], 2 * i);
    else {
      places.set([-2, b.byteLength], 2 * i);
      // a block sharing its buffer with others (a small inflate's may) is copied, so its buffer can be moved
      own.push(b.byteOffset !== 0 || b.byteLength !== b.buffer.byteLength ? new Uint8Array(b) : b);
    }
  });
  return { id: r.id, places, own, bad: r.bad, hashed: r.hashed };
}

/** The result a wire form describes (on the reading thread): views into `out` and the moved buffers. */
export function resultFromWire(w: WireResult, out: SharedArrayBuffer | undefined): BlockResult {
  const blocks: Array<Uint8Array | null> = [];
  let o = 0;
  for (let i = 0; i < w.places.length; i += 2) {
    const at = w.places[i]!;
    const length = w.places[i + 1]!;
    if (at === -2) blocks.push(w.own[o++]!);
    else blocks.push(at === -1 || out === undefined ? null : new Uint8Array(out, at, length));
  }
  return { id: w.id, blocks, bad: w.bad, hashed: w.hashed };
}
