// Byte-level building blocks: the one unsigned LEB128 varint codec, and a byte buffer that grows as pieces are added.

/** Longest varint of a safe integer (2^53 - 1 needs 53 bits: 8 groups of 7). */
export const MAX_VARINT_BYTES = 8;

/** Write `n` (a safe non-negative integer) as an unsigned LEB128 varint into `buf` at `at`; returns the offset after it. */
export function writeVarint(buf: Uint8Array, at: number, n: number): number {
  if (!Number.isSafeInteger(n) || n < 0) throw new RangeError(`varint: ${n} is not a safe non-negative integer`);
  while (n >= 0x80) {
    buf[at++] = (n % 0x80) | 0x80;
    n = Math.floor(n / 0x80);
  }
  buf[at++] = n;
  return at;
}

/** The bytes of one varint. */
export function encodeVarint(n: number): Buffer {
  const out = Buffer.allocUnsafe(MAX_VARINT_BYTES);
  return out.subarray(0, writeVarint(out, 0, n));
}

/** Reads varints (and the caller's other fields) from a buffer front to back; `at` is the next byte to read. */
export class ByteCursor {
  constructor(
    readonly buf: Uint8Array,
    public at = 0,
    readonly end = buf.length,
  ) {}

  /** Bytes left before `end`. */
  get left(): number {
    return this.end - this.at;
  }

  /** The next varint; throws RangeError when it is truncated, longer than 8 bytes or beyond 2^53 - 1. */
  varint(): number {
    let v = 0;
    for (let i = 0, mul = 1; i < MAX_VARINT_BYTES; i++, mul *= 0x80) {
      if (this.at >= this.end) throw new RangeError(`varint: truncated at byte ${this.at}`);
      const b = this.buf[this.at++]!;
      v += (b & 0x7f) * mul;
      if (!(b & 0x80)) {
        if (!Number.isSafeInteger(v)) throw new RangeError(`varint: value beyond 2^53 - 1 ending at byte ${this.at}`);
        return v;
      }
    }
    throw new RangeError(`varint: longer than ${MAX_VARINT_BYTES} bytes ending at byte ${this.at}`);
  }
}

/** Decode a buffer holding nothing but varints; throws RangeError on a truncated or oversized one. */
export function decodeVarints(buf: Uint8Array): number[] {
  const out: number[] = [];
  const cur = new ByteCursor(buf);
  while (cur.left > 0) out.push(cur.varint());
  return out;
}

/** A byte buffer that grows by doubling; collects small pieces (page headers, map varints, index entries) without concats. */
export class GrowBuffer {
  buf: Buffer;
  length = 0;

  constructor(initial = 64 * 1024) {
    this.buf = Buffer.allocUnsafe(initial);
  }

  private reserve(extra: number): void {
    if (this.length + extra <= this.buf.length) return;
    let cap = this.buf.length * 2;
    while (cap < this.length + extra) cap *= 2;
    const next = Buffer.allocUnsafe(cap);
    this.buf.copy(next, 0, 0, this.length);
    this.buf = next;
  }

  /** Append a copy of `data`. */
  append(data: Uint8Array): void {
    this.reserve(data.length);
    this.buf.set(data, this.length);
    this.length += data.length;
  }

  /** Append `n` as an unsigned LEB128 varint. */
  appendVarint(n: number): void {
    this.reserve(MAX_VARINT_BYTES);
    this.length = writeVarint(this.buf, this.length, n);
  }

  /** Drop the first `n` bytes. */
  consume(n: number): void {
    this.buf.copy(this.buf, 0, n, this.length);
    this.length -= n;
  }

  /** The bytes so far (a view: valid until the next append). */
  view(): Buffer {
    return this.buf.subarray(0, this.length);
  }
}
