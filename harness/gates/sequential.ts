// A run that stopped when its verdict was decided (soak run --until-decided) is judged on its gates' anytime-valid
// decisions: its length depended on the data, so a fixed-n verdict (valid only for a length fixed in advance) is shown
// beside it, not used. A gate still undecided when the budget ran out is inconclusive, never a pass.
import type { GateResult, Verdict } from './types.js';

/** The gate judged on its anytime decision, its fixed-n verdict kept in `fixedN`. */
export function judgedOnAnytime(g: GateResult): GateResult {
  const decision = g.anytime?.decision ?? 'undecided';
  const verdict: Verdict = decision === 'undecided' ? 'inconclusive' : decision;
  const note =
    decision === 'undecided'
      ? 'not decided when the run stopped: inconclusive'
      : `decided ${decision} (anytime-valid, alpha ${g.anytime?.alpha ?? 0.05})`;
  return {
    ...g,
    verdict,
    solid: decision !== 'undecided',
    fixedN: g.verdict,
    note: [g.note, `${note}; fixed-n verdict ${g.verdict}, not valid for a run stopped when decided`]
      .filter(Boolean)
      .join('; '),
  };
}

/**
 * What decided a --until-decided run after a cycle, or null: "every gate" once each gate's anytime decision is pass
 * or fail, or the first gate that failed (the lattice's fail outranks every other verdict, so the run's is decided).
 */
export function decidedBy(gates: readonly GateResult[]): string | null {
  const failed = gates.find((g) => g.anytime?.decision === 'fail');
  if (failed !== undefined) return `gate ${failed.id} (${failed.name}) failed`;
  return gates.length > 0 && gates.every((g) => g.anytime !== undefined && g.anytime.decision !== 'undecided')
    ? 'every gate'
    : null;
}
