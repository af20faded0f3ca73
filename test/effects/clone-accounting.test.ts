// Clones (issue 34): two sessions restored from one checkpoint both emit. The clone's accounting counts what the world
// applied only because there were two (step-derived keys: nothing; random or no keys: every clone effect the session
// also applied: the negative controls), and the session's own accounting leaves the clone's requests out, while an
// effect only the clone got applied first is still one the world saw (never "lost").
import { describe, expect, it } from 'vitest';
import { accountEffects } from '../../harness/effects/accounting.js';
import { accountClone } from '../../harness/effects/clone-accounting.js';
import type { LedgerRow } from '../../harness/effects/ledger-db.js';
import { DISCIPLINES, effectId, effectStepsThrough, type Discipline } from '../../harness/effects/plan.js';

const plan = { seed: 5, everySteps: 2 };
const steps = effectStepsThrough(plan.seed, 60, plan.everySteps);
let seq = 0;
/** What incarnation `inc` leaves in the ledger when it emits the effects of `at`: step keys applied once only. */
function emit(rows: LedgerRow[], inc: string, at: number[]): void {
  for (const step of at)
    for (const d of DISCIPLINES) {
      const effect = effectId(d, step);
      const applied = d !== 'step-key' || !rows.some((r) => r.effect === effect && r.applied);
      const key = d === 'step-key' ? `k${step}` : d === 'random-key' ? `r${++seq}` : null;
      const row = { seq: ++seq, session: 's', incarnation: inc, effect, discipline: d, key, step };
      rows.push({ ...row, arrivedMs: seq, applied, accounted: false });
    }
}
const acked = (n: number): Record<Discipline, number> => ({ 'step-key': n, 'random-key': n, 'no-key': n });

describe('clone accounting', () => {
  // the session (incarnation a) has emitted through steps[3]; it and its clone c both carry on from there
  const rows: LedgerRow[] = [];
  emit(rows, 'a', steps.slice(0, 4));
  const fork = steps[3]!;
  const after = steps.slice(4, 9);
  for (const s of after) {
    // the clone is first at odd steps, the session at even ones: who applies a step key first does not matter
    const order = after.indexOf(s) % 2 === 1 ? ['c', 'a'] : ['a', 'c'];
    for (const inc of order) emit(rows, inc, [s]);
  }

  it('counts the duplicates the clone caused per discipline: none with step keys, every one without', () => {
    const { fields, seqs } = accountClone(rows, 'c', 's', fork);
    expect(fields).toMatchObject({ restoredThrough: fork, incarnations: 1, clone: true });
    expect(seqs).toHaveLength(after.length * 3);
    expect(fields.disciplines['step-key']).toMatchObject({ emitted: 5, first: 5, duplicates: 0, deduplicated: 5 });
    expect(fields.disciplines['random-key']).toMatchObject({ first: 5, duplicates: 5, deduplicated: 0 });
    expect(fields.disciplines['no-key']).toMatchObject({ first: 5, duplicates: 5 });
  });

  it("the session's accounting leaves the clone out, and an effect the clone got applied first is not lost", () => {
    // the session is killed after the last step and resumed from a checkpoint at its end: its claim covers them all
    const resumed = { session: 's', claim: { through: after.at(-1)!, acked: acked(9), incarnation: 'b' } };
    const { fields } = accountEffects(rows, resumed, plan, new Set(['c']));
    for (const d of DISCIPLINES) {
      expect(fields.disciplines[d], d).toMatchObject({ emitted: 9, first: 9, reEmitted: 0, duplicates: 0, lost: 0 });
    }
    // negative control: the same rows with the clone not named: its requests are counted as the session's
    const blind = accountEffects(rows, resumed, plan).fields.disciplines;
    expect(blind['random-key']).toMatchObject({ emitted: 14, reEmitted: 5, duplicates: 5 });
  });

  it('an effect applied only by the clone (the session deduplicated by key) still counts as seen by the world', () => {
    const only: LedgerRow[] = [];
    emit(only, 'c', [steps[0]!]); // the clone applied the step key first
    emit(only, 'a', [steps[0]!]); // the session's request is deduplicated
    const resumed = { session: 's', claim: { through: steps[0]!, acked: acked(1), incarnation: 'b' } };
    expect(accountEffects(only, resumed, plan, new Set(['c'])).fields.disciplines['step-key'].lost).toBe(0);
  });
});
