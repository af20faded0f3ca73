// Seeded PRNG (sfc32, seeded through splitmix32) with uniform and integer helpers; the only randomness in the harness.
// Hand-written: simple-statistics draws from Math.random (or a source you bring); reports need seeded, replayable streams.

/** A deterministic random stream: same seed and stream, same numbers. */
export interface Rng {
  /** Uniform float in [0, 1), 32 bits of randomness. */
  next(): number;
  /** Uniform unsigned 32-bit integer. */
  uint32(): number;
  /** Uniform float in [min, max). */
  uniform(min: number, max: number): number;
  /** Uniform integer in [min, max], both inclusive, without modulo bias. */
  int(min: number, max: number): number;
  /** Fill `out` with uniform floats in [0, 1) (the same numbers as calling next() out.length times, several times faster). */
  fill(out: Float64Array): Float64Array;
}

function splitmix32(state: number): () => number {
  let s = state >>> 0;
  return () => {
    s = (s + 0x9e3779b9) >>> 0;
    let z = s;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
    return (z ^ (z >>> 16)) >>> 0;
  };
}

/** Create a stream from an integer seed in [0, 2^32); `stream` selects an independent sequence for the same seed. */
export function createRng(seed: number, stream = 0): Rng {
  if (!Number.isInteger(seed) || seed < 0 || seed > 0xffffffff)
    throw new RangeError(`createRng: seed must be an integer in [0, 2^32), got ${seed}`);
  if (!Number.isInteger(stream) || stream < 0 || stream > 0xffffffff)
    throw new RangeError(`createRng: stream must be an integer in [0, 2^32), got ${stream}`);
  const mix = splitmix32((seed ^ Math.imul(stream, 0x632be5ab)) >>> 0);
  let a = mix();
  let b = mix();
  let c = mix();
  let d = 1; // sfc32 counter
  const uint32 = (): number => {
    const t = (((a + b) >>> 0) + d) >>> 0;
    d = (d + 1) >>> 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) >>> 0;
    c = ((c << 21) | (c >>> 11)) >>> 0;
    c = (c + t) >>> 0;
    return t;
  };
  for (let i = 0; i < 12; i++) uint32(); // discard the warm-up outputs, as the sfc32 reference does
  const next = (): number => uint32() / 4294967296;
  const fill = (out: Float64Array): Float64Array => {
    let sa = a;
    let sb = b;
    let sc = c;
    let sd = d;
    for (let i = 0; i < out.length; i++) {
      const t = (((sa + sb) >>> 0) + sd) >>> 0;
      sd = (sd + 1) >>> 0;
      sa = sb ^ (sb >>> 9);
      sb = (sc + (sc << 3)) >>> 0;
      sc = ((sc << 21) | (sc >>> 11)) >>> 0;
      sc = (sc + t) >>> 0;
      out[i] = t / 4294967296;
    }
    a = sa;
    b = sb;
    c = sc;
    d = sd;
    return out;
  };
  return {
    next,
    fill,
    uint32,
    uniform: (min, max) => {
      if (!(Number.isFinite(min) && Number.isFinite(max) && min <= max))
        throw new RangeError(`uniform: bad range [${min}, ${max})`);
      return min + (max - min) * next();
    },
    int: (min, max) => {
      if (!Number.isSafeInteger(min) || !Number.isSafeInteger(max) || min > max || max - min >= 4294967296) {
        throw new RangeError(`int: need integers min <= max spanning at most 2^32 values, got [${min}, ${max}]`);
      }
      const span = max - min + 1;
      const limit = 4294967296 - (4294967296 % span); // reject the tail that would bias small values
      let x = uint32();
      while (x >= limit) x = uint32();
      return min + (x % span);
    },
  };
}
