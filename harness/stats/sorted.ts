// Sorting a sample once into a Float64Array (numeric order), rejecting values that are not finite numbers.

/** A sample sorted ascending, as produced by sortSample (any numeric array-like in ascending order works). */
export type SortedSample = ArrayLike<number>;

/** Copy and sort a sample ascending (typed-array numeric sort: about 0.1 s for 1e6 values); throws on NaN or infinities. */
export function sortSample(values: ArrayLike<number>): Float64Array {
  const sorted = Float64Array.from(values);
  for (let i = 0; i < sorted.length; i++) {
    if (!Number.isFinite(sorted[i])) throw new RangeError(`sample value at index ${i} is not a finite number: ${values[i]}`);
  }
  return sorted.sort();
}
