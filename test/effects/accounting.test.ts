// The effect accounting (issue 34, item 3): counted from ledger rows as a resume leaves them. Step-derived keys end
// deduplicated; random and absent keys are applied again (the negative controls: the checker must find their
// duplicates); a claim the world never saw is lost; effects past the restored claim are the world ahead of it.
import { describe, expect, it } from 'vitest';
import { accountEffects } from '../../harness/effects/accounting.js';
import type { LedgerRow } from '../../harness/effects/ledger-db.js';
import { DISCIPLINES, effectId, effectStepsThrough, type Discipline } from '../../harness/effects/plan.js';

const plan = { seed: 3, everySteps: 2 };
const steps = effectStepsThrough(plan.seed, 40, plan.everySteps);
let seq = 0;
/** The rows incarnation `inc` leaves when it emits every effect of `stepsDone`, as the ledger would record them. */
function emit(rows: LedgerRow[], inc: string, stepsDone: number[]): void {
  for (const step of stepsDone)
    for (const d of DISCIPLINES) {
      const effect = effectId(d, step);
      const applied = d !== 'step-key' || !rows.some((r) => r.effect === effect && r.applied);
      const key = d === 'step-key' ? `k${step}` : d === 'random-key' ? `r${++seq}` : null;
      rows.push({
        seq: ++seq,
        session: 's',
        incarnation: inc,
        effect,
        discipline: d,
        key,
        step,
        arrivedMs: seq,
        applied,
        accounted: false,
      });
    }
}
const acked = (n: number): Record<Discipline, number> => ({ 'step-key': n, 'random-key': n, 'no-key': n });

describe('effect accounting', () => {
  it('a resume from an earlier checkpoint: world ahead, then re-emissions deduplicated only with step keys', () => {
    const rows: LedgerRow[] = [];
    const [s1, s2, s3, s4] = steps;
    emit(rows, 'a', [s1!, s2!, s3!, s4!]); // incarnation a got to s4, then was killed
    const claimAt = { session: 's', claim: { through: s2!, acked: acked(2), incarnation: 'b' } };
    const first = accountEffects(rows, claimAt, plan);
    for (const d of DISCIPLINES)
      expect(first.fields.disciplines[d]).toEqual({
        emitted: 4,
        first: 4,
        reEmitted: 0,
        duplicates: 0,
        deduplicated: 0,
        worldAhead: 2,
        lost: 0,
      });
    for (const r of rows) r.accounted = first.seqs.includes(r.seq);
    emit(rows, 'b', [s3!, s4!]); // the resumed session redoes s3 and s4, then is killed
    const next = accountEffects(
      rows,
      { session: 's', claim: { through: s4!, acked: acked(4), incarnation: 'c' } },
      plan,
    );
    const d = next.fields.disciplines;
    expect(d['step-key']).toMatchObject({ emitted: 2, reEmitted: 2, duplicates: 0, deduplicated: 2, lost: 0 });
    expect(d['random-key']).toMatchObject({ emitted: 2, reEmitted: 2, duplicates: 2, deduplicated: 0, lost: 0 });
    expect(d['no-key']).toMatchObject({ emitted: 2, reEmitted: 2, duplicates: 2, deduplicated: 0, lost: 0 });
    expect(next.fields.incarnations).toBe(1);
  });

  it("a claim the world never saw is lost; the resumed session's own rows wait for the next accounting", () => {
    const rows: LedgerRow[] = [];
    emit(rows, 'a', steps.slice(0, 2));
    const claim = { through: steps[3]!, acked: acked(4), incarnation: 'b' };
    emit(rows, 'b', [steps[2]!]); // the new incarnation's own requests are not judged yet
    const r = accountEffects(rows, { session: 's', claim }, plan);
    for (const d of DISCIPLINES) expect(r.fields.disciplines[d]).toMatchObject({ emitted: 2, lost: 2 });
    // more acknowledgements than the claimed steps hold: the extra ones are lost too
    const over = accountEffects(rows, { session: 's', claim: { ...claim, through: steps[1]!, acked: acked(5) } }, plan);
    expect(over.fields.disciplines['no-key'].lost).toBe(3);
  });

  it('without a claim (the run end) counts the rows and judges nothing', () => {
    const rows: LedgerRow[] = [];
    emit(rows, 'a', steps.slice(0, 3));
    const r = accountEffects(rows, null, plan);
    expect(r.fields.restoredThrough).toBeNull();
    expect(r.seqs).toHaveLength(9);
    for (const d of DISCIPLINES) expect(r.fields.disciplines[d]).toMatchObject({ emitted: 3, worldAhead: 0, lost: 0 });
  });
});
