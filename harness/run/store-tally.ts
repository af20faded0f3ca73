// What run-end records of the run's store: its committed checkpoints and their bytes, counted by the same function as
// `soak store stats` (store/check/verify.ts storeStats), so the report and the store command count one thing.
import type { StoreTally } from '../journal/events.js';
import type { ManifestScan } from '../store/repository.js';
import type { Store } from '../store/store.js';
import { storeStats } from '../store/check/verify.js';

/**
 * The store's committed checkpoints and bytes as `soak store stats` counts them; undefined when it cannot be read.
 * `scan`: the store's manifests already read (after a refresh), so a caller that needs them too reads them once.
 */
export function storeTally(store: Store, scan?: ManifestScan): StoreTally | undefined {
  try {
    if (scan === undefined) store.refresh();
    const s = storeStats(store, scan);
    return { checkpoints: s.checkpoints.length, logicalBytes: s.logicalBytes, storedBytes: s.storedBytes };
  } catch {
    return undefined; // a full or failing disk: run-end goes without it, and the report says its count is a lower bound
  }
}
