// Retention: keep the newest N checkpoints, drop the rest, and reclaim the chunks only they needed. Every step leaves
// a store that verifies, whenever the process is killed: live chunks are copied into a new sealed pack before any old
// manifest goes, old manifests go before the pack indexes that list their chunks, indexes before their packs. The
// consolidated chunk index (packs/chunks.cix) goes with the first pack index and is written again at the end.
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { ConfigError, IntegrityError } from '../core/errors.js';
import { isTempName, removeDurably } from '../core/durable.js';
import { writeConsolidated } from './index/consolidate.js';
import { CONSOLIDATED_FILE } from './index/consolidated-index.js';
import { LOCATION_FILE } from './index/location-index.js';
import { manifestFileName } from './manifest.js';
import { sharedPacksLink } from './paths.js';
import { PackWriter } from './pack.js';
import { entryLocation, readPackIndex, type PackIndexFile } from './index/pack-index.js';
import type { Store } from './repository.js';
import { sweepDeadLockTemps } from './lock.js';
import { damagedPackIndexes } from './index/verify-pack-indexes.js';

export interface GcReport {
  keep: number;
  /** Sequence numbers of the checkpoints kept and removed. */
  kept: number[];
  removed: number[];
  /** Chunks kept checkpoints need that no intact pack holds (missing before gc ran: `soak store verify` names them). */
  missingChunks: number;
  packsBefore: number;
  packsAfter: number;
  /** Packs whose live chunks were copied into the new pack before they were deleted. */
  packsRewritten: number;
  /** Packs with no live chunk, deleted outright. */
  packsDeleted: number;
  chunksCopied: number;
  chunksDropped: number;
  /** Pack files without an intact index (torn by a killed writer or gc), removed. */
  tornPacksRemoved: number;
  /** Temp files of lock takers that died while writing their lock (locks/.<kind>-<pid>-...tmp-...), removed. */
  lockTempsRemoved: number;
  bytesBefore: number;
  bytesAfter: number;
}

const REWRITE_DEAD_FRACTION = 0.1;

/** Test hook: called after each durable step, so a test can stop gc there. */
export type GcStep = 'copied' | 'manifests-removed' | 'indexes-removed' | 'done';

/** What the hook is told: the packs gc will delete once the old manifests are gone (the torture test's negative control deletes them early). */
export interface GcPlan {
  packsToDelete: string[];
}

function dirBytes(dir: string): number {
  return readdirSync(dir).reduce((s, f) => s + statSync(path.join(dir, f)).size, 0);
}

/** A new consolidated chunk index of the packs gc left; best effort (without it, opens read the pack indexes). */
function consolidateAfterGc(packDir: string): void {
  try {
    writeConsolidated(packDir);
  } catch (err) {
    if (typeof (err as { code?: unknown } | null)?.code !== 'string') throw err;
  }
}

/**
 * Remove every checkpoint but the newest `keep` and the chunks only they used, under an exclusive lock (StoreBusyError,
 * exit 3, naming the PID while any live process holds the store). Refuses (IntegrityError, exit 1, naming the file),
 * deleting nothing, while a manifest or a pack index fails its check: gc cannot know which chunks that checkpoint
 * needs, or where the chunks that index lists are.
 */
export function gcStore(store: Store, keep: number, onStep: (step: GcStep, plan: GcPlan) => void = () => {}): GcReport {
  if (!Number.isInteger(keep) || keep < 1) throw new ConfigError(`--keep must be a whole number >= 1 (got ${keep})`);
  refuseSharedPacks(store.internals.paths.packs);
  return store.exclusively('gc', () => collect(store, keep, onStep));
}

/**
 * A store whose packs/ is a link (a session's store in a multi-session run, run/sessions.ts: every session's packs/ is
 * the run's one shared folder) cannot be collected alone: its manifests do not name the chunks other stores use, so
 * gc would delete them (measured: gc of one session's store left another's 325 checkpoints with 1,225 missing chunks).
 */
function refuseSharedPacks(packs: string): void {
  const link = sharedPacksLink(packs);
  if (link !== null)
    throw new ConfigError(
      `${packs} is shared with other stores (a link to ${link}, a multi-session run): gc of one of them would delete the chunks the others use; nothing deleted`,
    );
}

function collect(store: Store, keep: number, hook: (step: GcStep, plan: GcPlan) => void): GcReport {
  const { packs: packDir, checkpoints: manifestDir } = store.internals.paths;
  const bytesBefore = dirBytes(packDir) + dirBytes(manifestDir);
  store.reload(true); // plan from the pack indexes themselves, not the consolidated index's copy of them

  // Plan: which manifests stay, which chunks they need, and where the single copy of each chunk we keep lives.
  const { manifests, damaged } = store.scan();
  if (damaged.length > 0)
    throw new IntegrityError(
      `gc deleted nothing: ${damaged.map((d) => d.problem).join('; ')}. Its chunks cannot be told from garbage; run "soak store verify", then restore or move the file away`,
    );
  // Every pack index too: the chunks a damaged one lists cannot be located, so live ones would look missing and dead
  // ones could not be told apart (readers pass over such a pack as torn; gc must not plan without it).
  const badIndexes = damagedPackIndexes(packDir);
  if (badIndexes.length > 0)
    throw new IntegrityError(
      `gc deleted nothing: ${badIndexes.map((d) => d.problem).join('; ')}. The chunks it lists cannot be located; run "soak store verify", then restore the file from a copy (or move it and its pack out of the store, losing those chunks)`,
    );
  const readable = manifests.map((m) => ({ file: manifestFileName(m.seq), m }));
  const kept = readable.slice(-keep);
  const removed = readable.slice(0, Math.max(0, readable.length - keep));
  const broken = kept.find((k) => k.m.broken);
  // Without its chunk list gc cannot know what a kept checkpoint needs: stop before deleting anything.
  if (broken) throw new IntegrityError(`gc: ${broken.m.broken ?? ''}; run "soak store verify"`);
  const live = new Set<string>();
  for (const { m } of kept) {
    for (const h of m.listChunks ?? m.chunkList ?? []) live.add(h);
    for (const p of m.parts) for (const h of p.chunks) live.add(h);
  }

  const packFiles = readdirSync(packDir);
  const indexes: PackIndexFile[] = [];
  for (const f of packFiles.filter((x) => x.endsWith('.idx')).sort()) {
    const idx = readPackIndex(path.join(packDir, f));
    if (idx) indexes.push(idx);
  }
  // Packs with an index file, intact or not: a pack whose index is damaged is evidence, never collected.
  const indexed = new Set(packFiles.filter((x) => x.endsWith('.idx')).map((x) => x.slice(0, -4)));
  // A live delta needs its base (bases are stored whole, so one step reaches every chunk a read needs).
  for (const h of [...live]) {
    const base = store.locate(h)?.base;
    if (base !== undefined) live.add(base);
  }
  const owner = new Map<string, string>(); // hash -> the one pack whose copy we keep (the store's own choice)
  for (const h of live) {
    const loc = store.locate(h);
    if (loc) owner.set(h, loc.pack);
  }
  // A pack is rewritten once a tenth of its bytes are dead (a pack with no live chunk is simply deleted): rewriting
  // every pack with one dead chunk would copy nearly the whole store on every gc.
  const rewrite = indexes.filter((idx) => {
    let total = 0;
    let dead = 0;
    for (const e of idx.entries) {
      const { rawLength } = entryLocation(idx.pack, e);
      total += rawLength;
      if (owner.get(e[0]) !== idx.pack) dead += rawLength;
    }
    return dead > 0 && dead >= REWRITE_DEAD_FRACTION * total;
  });

  const plan: GcPlan = { packsToDelete: rewrite.map((i) => i.pack) };
  const onStep = (step: GcStep): void => hook(step, plan);

  // 1. Copy the live chunks of packs that also hold dead ones into a new pack, checking each, and seal it.
  const fresh = new PackWriter(packDir, store.compression);
  let chunksCopied = 0;
  let chunksDropped = 0;
  let packsRewritten = 0; // packs with at least one live chunk copied; the rest of `rewrite` was wholly dead
  try {
    for (const idx of rewrite) {
      const copiedBefore = chunksCopied;
      for (const [h] of idx.entries) {
        if (owner.get(h) !== idx.pack) {
          chunksDropped++;
          continue;
        }
        // Hash-checked on the way (never carry a corrupt chunk over silently: gc stops before deleting anything).
        const { stored, base } = store.internals.packs.readStoredChunk(h);
        fresh.add(h, stored, base);
        chunksCopied++;
      }
      if (chunksCopied > copiedBefore) packsRewritten++;
    }
    fresh.seal();
  } catch (err) {
    fresh.abandon();
    throw err;
  }
  onStep('copied');

  // 2. Old checkpoints go, oldest first; until their manifests are gone, every chunk they name still exists.
  removeDurably(
    manifestDir,
    removed.map((r) => r.file),
  );
  onStep('manifests-removed');

  // 3. Location indexes go (they may name a pack about to go; the newest is written again at the end), then indexes
  // of rewritten packs (their live chunks are now listed by the new pack's index), then the packs.
  removeDurably(
    manifestDir,
    readdirSync(manifestDir).filter((f) => LOCATION_FILE.test(f)),
  );
  removeDurably(packDir, [CONSOLIDATED_FILE, ...rewrite.map((i) => `${i.pack}.idx`)]);
  onStep('indexes-removed');
  const tornPacks = readdirSync(packDir).filter(
    (f) => f.endsWith('.pack') && !indexed.has(f.slice(0, -5)) && f !== `${fresh.id}.pack`,
  );
  const temps = readdirSync(packDir).filter((f) => isTempName(f));
  removeDurably(packDir, [...rewrite.map((i) => `${i.pack}.pack`), ...tornPacks, ...temps]);
  removeDurably(
    manifestDir,
    readdirSync(manifestDir).filter((f) => isTempName(f)),
  );
  const lockTemps = sweepDeadLockTemps(store.dir); // under gc's exclusive lock; a live taker's temp stays
  consolidateAfterGc(packDir);
  store.reload();
  store.latest(); // writes the newest checkpoint's location index again, so the next restore opens fast
  onStep('done');

  return {
    keep,
    kept: kept.map((k) => k.m.seq),
    removed: removed.map((r) => r.m.seq),
    missingChunks: [...live].filter((h) => !owner.has(h)).length,
    packsBefore: packFiles.filter((f) => f.endsWith('.pack')).length,
    packsAfter: readdirSync(packDir).filter((f) => f.endsWith('.pack')).length,
    packsRewritten,
    packsDeleted: rewrite.length - packsRewritten,
    chunksCopied,
    chunksDropped,
    tornPacksRemoved: tornPacks.length,
    lockTempsRemoved: lockTemps.length,
    bytesBefore,
    bytesAfter: dirBytes(packDir) + dirBytes(manifestDir),
  };
}
