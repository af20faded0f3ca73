// Fixed-size chunking of buffers and streams (4 KiB), without buffering a whole stream.
import type { PartData } from './types.js';

export const CHUNK_SIZE = 4096;

/** Yield CHUNK_SIZE slices of the input (the last one may be shorter). Stream input is re-framed incrementally. */
export async function* chunks(data: PartData, size = CHUNK_SIZE): AsyncGenerator<Buffer> {
  if (data instanceof Uint8Array) {
    const buf = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
    for (let off = 0; off < buf.length; off += size) yield buf.subarray(off, Math.min(off + size, buf.length));
    return;
  }
  let pending = Buffer.alloc(0);
  for await (const piece of data) {
    pending = pending.length === 0 ? Buffer.from(piece) : Buffer.concat([pending, piece]);
    let off = 0;
    while (pending.length - off >= size) {
      yield Buffer.from(pending.subarray(off, off + size));
      off += size;
    }
    pending = pending.subarray(off);
  }
  if (pending.length > 0) yield Buffer.from(pending);
}
