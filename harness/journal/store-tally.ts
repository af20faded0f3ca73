// What a run-end records of the run's store (run/store-tally.ts counts it as `soak store stats` does).

/** A store's committed checkpoints (manifests in place) and their logical and stored bytes. */
export interface StoreTally {
  checkpoints: number;
  logicalBytes: number;
  storedBytes: number;
  /**
   * A run of several sessions into one shared packs folder (run/sessions.ts): the stored bytes each session's
   * checkpoints need, counted once per session (store/check/needed-bytes.ts), summed: what the sessions would keep in
   * stores of their own, beside storedBytes, what the shared store holds. Absent for one session.
   */
  apartBytes?: number;
}
