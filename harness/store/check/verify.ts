// Store verification and accounting: re-hash every chunk of every committed checkpoint; logical vs stored bytes.
import { IntegrityError } from '../../core/errors.js';
import type { Manifest } from '../manifest.js';
import { pageMap } from '../read/part-reader.js';
import type { ManifestScan, SkippedManifest, Store } from '../repository.js';
import { verifyChunkIndex } from '../index/verify-chunk-index.js';
import { verifyLocations } from './verify-locations.js';
import { damagedPackIndexes } from '../index/verify-pack-indexes.js';
import { partDigestProblems } from './verify-parts.js';

export interface VerifyProblem {
  seq: number;
  part: string;
  chunk: string;
  problem: string;
}

/** What verify does beyond re-hashing every chunk. */
export interface VerifyOptions {
  /** Also rebuild each part and check its whole-part SHA-256 (`soak store verify` does unless --no-part-digests). */
  partDigests?: boolean;
}

export interface VerifyReport {
  checkpoints: number;
  chunksChecked: number;
  problems: VerifyProblem[];
}

/** Structural problems of a checkpoint's page-split parts: a page map that cannot be read or disagrees with its layout. */
export function layoutProblems(store: Store, m: Manifest): VerifyProblem[] {
  const out: VerifyProblem[] = [];
  for (const p of m.parts) {
    if (!p.layout) continue;
    try {
      const map = pageMap(store, p);
      const metaUsed = map.reduce((s, x) => s + x, 0);
      if (metaUsed > p.layout.metaBytes)
        throw new IntegrityError(
          `part "${p.name}": its page map places ${metaUsed} meta bytes, the part has ${p.layout.metaBytes}`,
        );
    } catch (err) {
      if (!(err instanceof IntegrityError)) throw err;
      out.push({ seq: m.seq, part: p.name, chunk: '(page map)', problem: err.message });
    }
  }
  return out;
}

/**
 * Re-hash every chunk each committed checkpoint references; report corrupt or missing ones by checkpoint, every
 * manifest file that fails its check by name (part "(manifest)"), every location index that is damaged or leads
 * a chunk read astray (part "(location index)"), every pack index that is damaged by name (part "(pack index)", seq 0),
 * and a consolidated chunk index that is damaged or disagrees with the pack indexes (part "(chunk index)", seq 0).
 */
export function verifyStore(store: Store, opts: VerifyOptions = {}): VerifyReport {
  store.internals.packs.close(); // read every chunk from disk again, not from what this process already checked
  const good = new Set<string>();
  const digestsChecked = new Set<string>();
  let chunksChecked = 0;
  const { manifests, damaged } = store.scan();
  const problems: VerifyProblem[] = damaged.map((d) => ({
    seq: Number(d.file.slice(-15, -5)),
    part: '(manifest)',
    chunk: '',
    problem: d.problem,
  }));
  for (const m of manifests) {
    if (m.broken) {
      problems.push({ seq: m.seq, part: '(chunk list)', chunk: '', problem: m.broken });
      continue;
    }
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
    if (!problems.some((p) => p.seq === m.seq)) problems.push(...layoutProblems(store, m));
    if (opts.partDigests === true && !problems.some((p) => p.seq === m.seq))
      for (const d of partDigestProblems(store, m, digestsChecked))
        problems.push({ seq: m.seq, part: d.part, chunk: '(part digest)', problem: d.problem });
  }
  for (const d of damagedPackIndexes(store.internals.paths.packs))
    problems.push({ seq: 0, part: '(pack index)', chunk: '', problem: d.problem });
  store.internals.index.load(); // every pack index, to tell a location index's own fault from a chunk's
  for (const l of verifyLocations(store.internals.paths, store.internals.index))
    problems.push({ seq: l.seq, part: '(location index)', chunk: l.chunk, problem: l.problem });
  for (const c of verifyChunkIndex(store.internals.paths))
    problems.push({ seq: 0, part: '(chunk index)', chunk: c.chunk, problem: c.problem });
  return { checkpoints: manifests.length, chunksChecked, problems };
}

export interface StoreStatsRow {
  seq: number;
  step: number;
  /** The parts as handed over (a migration stream at its stream size: a zero page is 9 bytes). */
  logicalBytes: number;
  /** The same with each migration stream counted at the guest RAM size it declares (a raw memory image's size). */
  guestLogicalBytes: number;
  storedBytes: number;
  /** Chunks this checkpoint added, and how many of them are deltas (null: written before deltas existed). */
  newChunks: number;
  newDeltas: number | null;
  ratio: number | null;
  cumLogicalBytes: number;
  cumStoredBytes: number;
  cumRatio: number | null;
}

export interface StoreStats {
  checkpoints: StoreStatsRow[];
  logicalBytes: number;
  guestLogicalBytes: number;
  /** guestLogicalBytes / storedBytes. */
  guestRatio: number | null;
  storedBytes: number;
  ratio: number | null;
  /** Everything under the store folder, including torn packs not yet collected. */
  diskBytes: number;
  /** Manifest files that fail their check: not counted above. */
  skipped: SkippedManifest[];
}

/** A checkpoint's logical bytes with migration streams counted at their guest RAM size. */
function guestLogical(m: Manifest): number {
  return m.parts.reduce((s, p) => s + (p.layout?.ramBytes ?? p.size), 0);
}

/** Logical bytes (what the checkpoints hold) vs stored bytes (what they added), per checkpoint and cumulative. */
export function storeStats(store: Store, scan: ManifestScan = store.scan()): StoreStats {
  let cumL = 0;
  let cumG = 0;
  let cumS = 0;
  const { manifests, damaged } = scan;
  const rows = manifests.map((m) => {
    cumL += m.logicalBytes;
    cumG += guestLogical(m);
    cumS += m.storedBytes;
    return {
      seq: m.seq,
      step: m.step,
      logicalBytes: m.logicalBytes,
      guestLogicalBytes: guestLogical(m),
      storedBytes: m.storedBytes,
      newChunks: m.newChunks,
      newDeltas: m.newDeltas ?? null,
      ratio: m.storedBytes > 0 ? m.logicalBytes / m.storedBytes : null,
      cumLogicalBytes: cumL,
      cumStoredBytes: cumS,
      cumRatio: cumS > 0 ? cumL / cumS : null,
    };
  });
  return {
    checkpoints: rows,
    logicalBytes: cumL,
    guestLogicalBytes: cumG,
    guestRatio: cumS > 0 ? cumG / cumS : null,
    storedBytes: cumS,
    ratio: cumS > 0 ? cumL / cumS : null,
    diskBytes: store.diskBytes(),
    skipped: damaged,
  };
}
