// Growable columns and key ordering for analysis tables: a million cycles cost a few typed arrays, not a million objects.

/** null as NaN, for a number column (JSON has no NaN, so the two never mix). */
export const orNaN = (x: number | null): number => x ?? Number.NaN;

/** NaN back to null. */
export const orNull = (x: number): number | null => (Number.isNaN(x) ? null : x);

/** Doubles in a Float64Array that doubles its capacity when full; view() is the filled part (no copy). */
export class Float64Column {
  private data = new Float64Array(1024);
  private filled = 0;

  get length(): number {
    return this.filled;
  }

  push(x: number): void {
    if (this.filled === this.data.length) this.grow(this.filled + 1);
    this.data[this.filled++] = x;
  }

  /** Append many values, `offset` added to each. */
  pushAll(values: Float64Array, offset = 0): void {
    if (this.filled + values.length > this.data.length) this.grow(this.filled + values.length);
    if (offset === 0) this.data.set(values, this.filled);
    else for (let i = 0; i < values.length; i++) this.data[this.filled + i] = values[i]! + offset;
    this.filled += values.length;
  }

  private grow(needed: number): void {
    let capacity = this.data.length * 2;
    while (capacity < needed) capacity *= 2;
    const bigger = new Float64Array(capacity);
    bigger.set(this.data);
    this.data = bigger;
  }

  view(): Float64Array {
    return this.data.subarray(0, this.filled);
  }
}

/** A string column as sent between threads: each distinct value once, and one code per row (an index into names). */
export interface EncodedStrings<T extends string> {
  names: T[];
  codes: Uint32Array;
}

/** Strings with each distinct value stored once: journal strings (phases, outcomes, violation codes) repeat endlessly. */
export class StringColumn<T extends string> {
  private readonly codeOf = new Map<T, number>();
  private readonly names: T[] = [];
  readonly values: T[] = [];

  push(text: T): void {
    this.values.push(this.names[this.code(text)]!);
  }

  private code(text: T): number {
    let code = this.codeOf.get(text);
    if (code === undefined) {
      code = this.names.length;
      this.codeOf.set(text, code);
      this.names.push(text);
    }
    return code;
  }

  encode(): EncodedStrings<T> {
    return { names: [...this.names], codes: Uint32Array.from(this.values, (v) => this.codeOf.get(v)!) };
  }

  /** Append an encoded column (in its order). */
  pushEncoded(e: EncodedStrings<T>): void {
    const local = e.names.map((name) => this.names[this.code(name)]!);
    for (const c of e.codes) this.values.push(local[c]!);
  }
}

/** Which appended rows to keep, in key order: null keeps all as they are (keys already strictly ascending). */
export type RowOrder = Uint32Array | null;

/** Row indices that put `values` in ascending order, equal values in row order (a stable sort); no sort when already ascending. */
export function ascendingOrder(values: Float64Array): Uint32Array {
  const order = new Uint32Array(values.length);
  for (let i = 0; i < order.length; i++) order[i] = i;
  let sorted = true;
  for (let i = 1; i < values.length && sorted; i++) sorted = values[i - 1]! <= values[i]!;
  if (!sorted) order.sort((a, b) => values[a]! - values[b]! || a - b);
  return order;
}

/**
 * The row order that sorts `keys` ascending and keeps only the last row appended for each key (a cycle journaled
 * twice counts once, as its last outcome). Null, without sorting, when the keys already ascend strictly (the usual case).
 */
export function lastWinsOrder(keys: Float64Array): RowOrder {
  if (strictlyAscending(keys)) return null;
  const order = ascendingOrder(keys);
  let kept = 0;
  for (let j = 0; j < order.length; j++) {
    const i = order[j]!;
    const next = order[j + 1];
    if (next === undefined || keys[next] !== keys[i]) order[kept++] = i;
  }
  return order.subarray(0, kept);
}

function strictlyAscending(keys: Float64Array): boolean {
  for (let i = 1; i < keys.length; i++) if (!(keys[i - 1]! < keys[i]!)) return false;
  return true;
}

/** A column's values in `order`. */
export function gather(values: Float64Array, order: RowOrder): Float64Array {
  if (order === null) return values;
  const out = new Float64Array(order.length);
  for (let j = 0; j < order.length; j++) out[j] = values[order[j]!]!;
  return out;
}

/** A string column's values in `order`. */
export function gatherStrings<T>(values: T[], order: RowOrder): T[] {
  return order === null ? values : Array.from(order, (i) => values[i]!);
}

/** A copy of `byAppended` (values by append index) keyed by table row instead, for the rows `order` keeps. */
export function byRow<T>(byAppended: ReadonlyMap<number, T>, order: RowOrder): Map<number, T> {
  if (order === null) return new Map(byAppended);
  const out = new Map<number, T>();
  order.forEach((appended, row) => {
    const v = byAppended.get(appended);
    if (v !== undefined) out.set(row, v);
  });
  return out;
}

/** The distinct values of `keys`, ascending (no sort when they already ascend strictly, the usual case). */
export function sortedDistinct(keys: Float64Array): Float64Array {
  if (strictlyAscending(keys)) return keys;
  const sorted = Float64Array.from(keys).sort();
  let kept = 0;
  for (let i = 0; i < sorted.length; i++) if (i === 0 || sorted[i] !== sorted[kept - 1]) sorted[kept++] = sorted[i]!;
  return sorted.subarray(0, kept);
}

/** How many values of ascending `a` are not in ascending `b`. */
export function countMissing(a: Float64Array, b: Float64Array): number {
  let missing = 0;
  let j = 0;
  for (let i = 0; i < a.length; i++) {
    while (j < b.length && b[j]! < a[i]!) j++;
    if (j === b.length || b[j] !== a[i]) missing++;
  }
  return missing;
}

/** The sum of `values`, added left to right (the order a journal was written in). */
export function sumInOrder(values: Float64Array): number {
  let total = 0;
  for (let i = 0; i < values.length; i++) total += values[i]!;
  return total;
}

/** Running totals in order: out[i] = values[0] + ... + values[i], summed left to right. */
export function runningTotals(values: Float64Array): Float64Array {
  const out = new Float64Array(values.length);
  let total = 0;
  for (let i = 0; i < values.length; i++) out[i] = total += values[i]!;
  return out;
}
