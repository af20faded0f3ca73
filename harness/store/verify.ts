// Store verification and accounting: re-hash every chunk of every committed checkpoint; logical vs stored bytes.
import { IntegrityError } from '../errors.js';
import type { Store } from './store.js';

export interface VerifyProblem {
  seq: number;
  part: string;
  chunk: string;
  problem: string;
}

export interface VerifyReport {
  checkpoints: number;
  chunksChecked: number;
  problems: VerifyProblem[];
}

/** Re-hash every chunk each committed checkpoint references; report corrupt or missing ones by checkpoint. */
export function verifyStore(store: Store): VerifyReport {
  const problems: VerifyProblem[] = [];
  const good = new Set<string>();
  let chunksChecked = 0;
  const manifests = store.list();
  for (const m of manifests) {
    for (const part of m.parts) {
      for (const hash of part.chunks) {
        chunksChecked++;
        if (good.has(hash)) continue;
        try {
          store.readChunk(hash);
          good.add(hash);
        } catch (err) {
          if (!(err instanceof IntegrityError)) throw err;
          problems.push({ seq: m.seq, part: part.name, chunk: hash, problem: err.message });
        }
      }
    }
  }
  return { checkpoints: manifests.length, chunksChecked, problems };
}

export interface StoreStatsRow {
  seq: number;
  step: number;
  logicalBytes: number;
  storedBytes: number;
  ratio: number | null;
  cumLogicalBytes: number;
  cumStoredBytes: number;
  cumRatio: number | null;
}

export interface StoreStats {
  checkpoints: StoreStatsRow[];
  logicalBytes: number;
  storedBytes: number;
  ratio: number | null;
  /** Everything under the store folder, including torn packs not yet collected. */
  diskBytes: number;
}

/** Logical bytes (what the checkpoints hold) vs stored bytes (what they added), per checkpoint and cumulative. */
export function storeStats(store: Store): StoreStats {
  let cumL = 0;
  let cumS = 0;
  const rows = store.list().map((m) => {
    cumL += m.logicalBytes;
    cumS += m.storedBytes;
    return {
      seq: m.seq,
      step: m.step,
      logicalBytes: m.logicalBytes,
      storedBytes: m.storedBytes,
      ratio: m.storedBytes > 0 ? m.logicalBytes / m.storedBytes : null,
      cumLogicalBytes: cumL,
      cumStoredBytes: cumS,
      cumRatio: cumS > 0 ? cumL / cumS : null,
    };
  });
  return { checkpoints: rows, logicalBytes: cumL, storedBytes: cumS, ratio: cumS > 0 ? cumL / cumS : null, diskBytes: store.diskBytes() };
}
