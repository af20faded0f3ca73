// The first journal line of each cycle id's outcome: a dense typed column for the ids a run uses (1..N, 8 bytes
// each), a Map for a rare far-out id, so a journal of a million cycles is checked for repeats in bounded memory.

/** Ids below this go into the dense column (at most 8 bytes per id up to the largest one seen). */
const DENSE_MAX = 1 << 24;

/** What a part of a journal hands on: its ids' first lines, structured-cloneable. */
export interface IdLinesPart {
  dense: Float64Array;
  sparse: [number, number][];
}

/** Line of the first sighting of each id (lines are >= 1; 0 means not seen). */
export class IdLines {
  private dense = new Float64Array(1024);
  private readonly sparse = new Map<number, number>();

  /** The first line of `id`, or 0. */
  get(id: number): number {
    return id < DENSE_MAX ? (this.dense[id] ?? 0) : (this.sparse.get(id) ?? 0);
  }

  /** Record `id` at `line` unless it was seen; returns the first line it was seen at (0: it was not). */
  see(id: number, line: number): number {
    const first = this.get(id);
    if (first !== 0) return first;
    if (id >= DENSE_MAX) this.sparse.set(id, line);
    else {
      if (id >= this.dense.length) {
        const grown = new Float64Array(Math.min(DENSE_MAX, Math.max(this.dense.length * 2, id + 1)));
        grown.set(this.dense);
        this.dense = grown;
      }
      this.dense[id] = line;
    }
    return 0;
  }

  /** Every id with its first line, as a part to hand to another thread. */
  part(): IdLinesPart {
    return { dense: this.dense, sparse: [...this.sparse] };
  }

  /** Call `fn(id, line)` for every id of `part`, in no particular order. */
  static forEach(part: IdLinesPart, fn: (id: number, line: number) => void): void {
    part.dense.forEach((line, id) => {
      if (line !== 0) fn(id, line);
    });
    for (const [id, line] of part.sparse) fn(id, line);
  }
}
