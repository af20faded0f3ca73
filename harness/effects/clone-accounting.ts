// The accounting of a clone (issue 34): a second session restored from the session's checkpoint while the session ran
// on, both emitting the same logical effects; per discipline, the applications the clone caused beyond the first.
import type { EffectCounts } from '../journal/effects-event.js';
import type { EffectsAccount } from './accounting.js';
import type { LedgerRow } from './ledger-db.js';
import { DISCIPLINES, type Discipline } from './plan.js';

/**
 * Count the clone `incarnation`'s requests in session `session` (restored at step `forkStep`), against every other
 * request of the session for the same logical effects:
 * - emitted / first: the clone's requests, and the logical effects they were for;
 * - duplicates: for each such effect, the clone's applications when the session (any other incarnation) had it applied
 *   too, else those beyond the first: what the world applied only because there were two sessions;
 * - deduplicated: requests for those effects, the clone's and the session's, the world recognised by key and refused.
 */
export function accountClone(
  rows: readonly LedgerRow[],
  incarnation: string,
  session: string,
  forkStep: number,
): EffectsAccount {
  const counts = Object.fromEntries(
    DISCIPLINES.map((d) => [
      d,
      { emitted: 0, first: 0, reEmitted: 0, duplicates: 0, deduplicated: 0, worldAhead: 0, lost: 0 },
    ]),
  ) as Record<Discipline, EffectCounts>;
  const mine = rows.filter((r) => r.session === session && r.incarnation === incarnation);
  const effects = new Map<string, Discipline>(mine.map((r) => [r.effect, r.discipline]));
  for (const [effect, d] of effects) {
    const all = rows.filter((r) => r.session === session && r.effect === effect);
    const byClone = all.filter((r) => r.incarnation === incarnation && r.applied).length;
    const byOthers = all.filter((r) => r.incarnation !== incarnation && r.applied).length;
    const c = counts[d];
    c.first++;
    c.duplicates += byOthers >= 1 ? byClone : Math.max(0, byClone - 1);
    const cloneFirst = all.find((r) => r.incarnation === incarnation)?.seq ?? Infinity;
    c.deduplicated += all.filter((r) => !r.applied && r.seq >= cloneFirst).length;
  }
  for (const r of mine) counts[r.discipline].emitted++;
  return {
    fields: { restoredThrough: forkStep, incarnations: 1, disciplines: counts, clone: true },
    seqs: mine.map((r) => r.seq),
  };
}
