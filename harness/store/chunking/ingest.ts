// Ingest: cut a part's bytes into chunks as they arrive, synchronously (no await per chunk: hashing is the budget),
// and hand each chunk to a sink that hashes and dedups it.
import { GrowBuffer } from '../../core/bytes.js';
import { CDC_4K, type CdcParams, cutPoint } from './cdc.js';

/** Fixed chunk size: a page, so disk and RAM images dedup page by page. */
export const CHUNK_SIZE = 4096;

/** Receives chunks in order. The buffer is only valid during the call (it may be a view into the caller's input). */
export type ChunkFn = (chunk: Uint8Array) => void;

/** A push-based cutter: bytes in, chunks out through the ChunkFn it was built with. */
export interface Cutter {
  push(data: Uint8Array): void;
  end(): void;
}

/** Fixed-size chunks: slices wholly inside a pushed buffer are passed as views (no copy); only a straddling chunk is copied. */
export class FixedCutter implements Cutter {
  private readonly carry: Buffer;
  private carried = 0;

  constructor(
    private readonly emit: ChunkFn,
    private readonly size = CHUNK_SIZE,
  ) {
    this.carry = Buffer.allocUnsafe(size);
  }

  push(data: Uint8Array): void {
    let off = 0;
    if (this.carried > 0) {
      const take = Math.min(this.size - this.carried, data.length);
      this.carry.set(data.subarray(0, take), this.carried);
      this.carried += take;
      off = take;
      if (this.carried < this.size) return;
      this.emit(this.carry);
      this.carried = 0;
    }
    const whole = off + Math.floor((data.length - off) / this.size) * this.size;
    for (; off < whole; off += this.size) this.emit(data.subarray(off, off + this.size));
    if (off < data.length) {
      this.carry.set(data.subarray(off), 0);
      this.carried = data.length - off;
    }
  }

  end(): void {
    if (this.carried > 0) this.emit(this.carry.subarray(0, this.carried));
    this.carried = 0;
  }
}

/** Content-defined chunks (store/chunking/cdc.ts): a boundary is cut only once `max` bytes follow it or input ends. */
export class CdcCutter implements Cutter {
  private readonly pending: GrowBuffer;

  constructor(
    private readonly emit: ChunkFn,
    private readonly params: CdcParams = CDC_4K,
  ) {
    this.pending = new GrowBuffer(4 * params.max);
  }

  push(data: Uint8Array): void {
    this.pending.append(data);
    const max = this.params.max;
    if (this.pending.length < 2 * max) return;
    const buf = this.pending.buf;
    let off = 0;
    while (this.pending.length - off >= max) {
      const len = cutPoint(buf, off, this.pending.length, this.params);
      this.emit(buf.subarray(off, off + len));
      off += len;
    }
    this.pending.consume(off);
  }

  end(): void {
    const buf = this.pending.buf;
    let off = 0;
    while (off < this.pending.length) {
      const len = cutPoint(buf, off, this.pending.length, this.params);
      this.emit(buf.subarray(off, off + len));
      off += len;
    }
    this.pending.length = 0;
  }
}
