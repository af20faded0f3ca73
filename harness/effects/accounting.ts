// The effect accounting after a resume, as Jepsen's queue checkers count deliveries: a pure function of the ledger's
// rows (what the world saw) and the restored state's claim (what the session believes the world saw), per discipline.
import type { EffectsClaim } from '../check/heartbeat.js';
import type { EffectCounts, EffectsEventFields } from '../journal/effects-event.js';
import type { LedgerRow } from './ledger-db.js';
import { DISCIPLINES, effectId, effectStepsThrough, type Discipline } from './plan.js';

/** The restored session's claim and whose session it is; null after the run's last session (no resume to judge). */
export interface ResumeClaim {
  session: string;
  claim: EffectsClaim;
}

/** An accounting: the journal event's fields, and the rows it counted (marked once the event is on disk). */
export interface EffectsAccount {
  fields: Omit<EffectsEventFields, 'cycle'>;
  seqs: number[];
}

const zero = (): EffectCounts => ({
  emitted: 0,
  first: 0,
  reEmitted: 0,
  duplicates: 0,
  deduplicated: 0,
  worldAhead: 0,
  lost: 0,
});

/**
 * Count the rows not yet counted, except the resumed session's own (they are the next accounting's), and judge the
 * restored state's claim against everything the world saw before it:
 * - emitted / first / reEmitted: requests sent, of which the first of their logical effect, and re-emissions of one
 *   the world had been sent before (the work a resume redid);
 * - duplicates: requests the world applied although it had applied the same logical effect before;
 * - deduplicated: requests the world recognised by their key and did not apply again;
 * - worldAhead: logical effects the world applied that the restored state does not hold (its step is past the claim);
 * - lost: logical effects the restored state says were acknowledged that the world never applied (must be 0).
 */
export function accountEffects(
  rows: readonly LedgerRow[],
  resumed: ResumeClaim | null,
  plan: { seed: number; everySteps: number },
  clones: ReadonlySet<string> = new Set(),
): EffectsAccount {
  const counts = Object.fromEntries(DISCIPLINES.map((d) => [d, zero()])) as Record<Discipline, EffectCounts>;
  const mine = resumed?.claim.incarnation;
  const sent = new Set<string>();
  const applied = new Set<string>();
  const appliedByClone = new Set<string>(); // a clone's applications: the world saw them, the session did not send them
  const window = new Set<string>();
  const seqs: number[] = [];
  for (const r of rows) {
    const id = `${r.session} ${r.effect}`;
    if (clones.has(r.incarnation)) {
      if (r.applied) appliedByClone.add(id); // counted by the clone's own accounting (clone-accounting.ts)
      continue;
    }
    if (!r.accounted && r.incarnation !== mine) {
      const c = counts[r.discipline];
      c.emitted++;
      if (sent.has(id)) c.reEmitted++;
      else c.first++;
      if (!r.applied) c.deduplicated++;
      else if (applied.has(id)) c.duplicates++;
      seqs.push(r.seq);
      window.add(r.incarnation);
    }
    sent.add(id);
    if (r.applied && r.incarnation !== mine) applied.add(id);
  }
  if (resumed !== null) {
    const { session, claim } = resumed;
    const steps = effectStepsThrough(plan.seed, claim.through, plan.everySteps);
    for (const d of DISCIPLINES) {
      const seen = (s: number): boolean =>
        applied.has(`${session} ${effectId(d, s)}`) || appliedByClone.has(`${session} ${effectId(d, s)}`);
      counts[d].lost = steps.filter((s) => !seen(s)).length;
      // a claim that counts more acknowledgements than its steps hold says the world saw effects it cannot name
      counts[d].lost += Math.max(0, (claim.acked[d] ?? 0) - steps.length);
    }
    const ahead = new Set<string>();
    for (const r of rows)
      if (r.session === session && r.applied && r.incarnation !== mine && !clones.has(r.incarnation))
        if (r.step > claim.through) ahead.add(r.effect);
    for (const e of ahead) counts[e.slice(0, e.indexOf(':')) as Discipline].worldAhead++;
  }
  return {
    fields: { restoredThrough: resumed?.claim.through ?? null, incarnations: window.size, disciplines: counts },
    seqs,
  };
}
