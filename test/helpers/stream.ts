// Test data as the async streams a store writer reads: pieces of a buffer, or any list of chunks.

/** `data` cut into `size`-byte views (the last one may be shorter). */
export function* slices(data: Uint8Array, size: number): Generator<Uint8Array> {
  for (let off = 0; off < data.length; off += size) yield data.subarray(off, off + size);
}

/** `items` as an async stream, one at a time (read lazily, as a generator's items are made). */
export function streamOf<T>(items: Iterable<T>): AsyncIterableIterator<T> {
  const it = items[Symbol.iterator]();
  return {
    next: () => Promise.resolve(it.next()),
    [Symbol.asyncIterator]() {
      return this;
    },
  };
}
