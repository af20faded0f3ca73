// Sorting a sample once into a Float64Array (numeric order), rejecting values that are not finite numbers.
// Hand-written: simple-statistics' numericSort checks nothing (NaN sorts anywhere) and is slower than a typed-array sort.

/** A sample sorted ascending, as produced by sortSample (any numeric array-like in ascending order works). */
export type SortedSample = ArrayLike<number>;

/** Copy and sort a sample ascending (a typed-array numeric sort); throws on NaN or infinities. */
export function sortSample(values: ArrayLike<number>): Float64Array {
  const sorted = Float64Array.from(values);
  let negative = false;
  for (let i = 0; i < sorted.length; i++) {
    const x = sorted[i]!;
    if (!Number.isFinite(x)) throw new RangeError(`sample value at index ${i} is not a finite number: ${values[i]}`);
    if (x < 0 || Object.is(x, -0)) negative = true;
  }
  // Doubles >= 0 (no -0) are in the same order as their bits read as unsigned integers, and integers sort faster
  // (bench/README.md): most samples are times and sizes.
  if (negative) sorted.sort();
  else new BigUint64Array(sorted.buffer).sort();
  return sorted;
}
