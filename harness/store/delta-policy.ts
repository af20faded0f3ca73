// When the writer tries a delta: trying costs reading the base (inflating its block), so once tries stop paying only
// every DELTA_PROBE_EVERY-th new page with a base is tried, until they pay again.

/** Below this share of recent tries paying, probe only every DELTA_PROBE_EVERY-th page. */
const DELTA_MIN_RATE = 0.3;
/** A base read inflates a 64 KiB block of ~16 pages: probing every 16th page would still inflate every block. */
const DELTA_PROBE_EVERY = 256;

/** The delta policy of one checkpoint write: the recent share of tries that paid (moving average over ~32). */
export class DeltaPolicy {
  private candidates = 0;
  private rate = 1;

  /** Whether to try a delta for this new page that has a base. */
  shouldTry(): boolean {
    this.candidates++;
    return this.rate >= DELTA_MIN_RATE || this.candidates % DELTA_PROBE_EVERY === 0;
  }

  /** Note whether a try paid. */
  tried(paid: boolean): void {
    this.rate += ((paid ? 1 : 0) - this.rate) / 32;
  }
}
