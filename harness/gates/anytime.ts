// A gate's anytime-valid decision (pass / fail / undecided at alpha), valid however often the gate is looked at and
// whenever the run stops: a rate's Wilson gate and a quantile gate ("p95 < 1000" is the rate of samples < 1000 against
// 95%) are decided by the mixture e-processes of stats/anytime.ts; a count that only grows (its fail is final, its pass
// is the same at every look from minN on) and a ratio are decided by the gate's own rule, and say so.
import { anytimeInterval, decideRate } from '../stats/anytime.js';
import type { Measurement } from './metrics.js';
import { holds, violationIsFinal } from './threshold.js';
import type { AnytimeDecision, GateEvidence, Threshold, Verdict } from './types.js';

export type { AnytimeDecision } from './types.js';

/** alpha of a gate: a wilsonNN gate's 1 - NN/100 (one-sided), else 0.05 (the one-sided 95% of the quantile bounds). */
function alphaOf(t: Threshold): number {
  return t.stat.kind === 'wilson' ? Number((1 - t.stat.level / 100).toPrecision(12)) : 0.05;
}

/** Test successes/trials against a rate bar: `passAbove` says whether a rate above the bar passes the gate. */
function sequential(
  successes: number,
  trials: number,
  bar: number,
  passAbove: boolean,
  alpha: number,
  rate: string,
): AnytimeDecision {
  const base = { method: 'e-process' as const, alpha, rate, successes, trials, bar };
  if (!(bar > 0 && bar < 1)) {
    return { ...base, decision: 'undecided', interval: null, note: `a bar of ${bar} can never be certified` };
  }
  const side = decideRate(successes, trials - successes, bar, alpha);
  const interval = anytimeInterval(successes, trials - successes, alpha);
  const decision = side === 'undecided' ? 'undecided' : (side === 'above') === passAbove ? 'pass' : 'fail';
  return { ...base, decision, interval, note: '' };
}

/** The gate's own rule: its verdict when that is final whenever it is looked at, else undecided. */
function gateRule(verdict: Verdict, final: boolean, alpha: number, why: string): AnytimeDecision {
  const decision = verdict === 'pass' || (verdict === 'fail' && final) ? verdict : 'undecided';
  return {
    decision,
    method: 'gate-rule',
    alpha,
    rate: '',
    successes: null,
    trials: null,
    bar: null,
    interval: null,
    note: why,
  };
}

/** The anytime-valid decision of one gate, from what it measured, its raw samples and its fixed-n verdict. */
export function anytimeDecision(
  metric: string,
  t: Threshold,
  m: Measurement,
  evidence: GateEvidence,
  verdict: Verdict,
): AnytimeDecision {
  const alpha = alphaOf(t);
  const { stat, op, bound } = t;
  if (m.kind === 'rate' && stat.kind === 'wilson' && op !== '==') {
    const trials = m.n;
    return sequential(m.successes ?? 0, trials, bound, op === '>' || op === '>=', alpha, 'trials that succeeded');
  }
  if (m.kind === 'distribution' && stat.kind === 'quantile' && op !== '==') {
    const samples = evidence.samples?.[metric];
    if (samples === undefined) {
      return { ...gateRule('insufficient', false, alpha, 'no raw samples to decide on'), method: 'e-process' };
    }
    let within = 0;
    for (let i = 0; i < samples.length; i++) if (holds(samples[i] ?? Number.NaN, op, bound)) within++;
    // "pNN < bar" holds when more than NN% of samples are < bar; "pNN > bar" when more than (100 - NN)% are > bar
    const bar = op === '<' || op === '<=' ? stat.q : 1 - stat.q;
    return sequential(within, samples.length, bar, true, alpha, `${metric} samples ${op} ${bound}`);
  }
  if (m.kind === 'count' || (m.kind === 'rate' && m.growsOnly)) {
    return gateRule(
      verdict,
      m.growsOnly && violationIsFinal(op),
      alpha,
      'a count that only grows: its fail is final and its pass is the same at every look from minN on',
    );
  }
  return gateRule(
    verdict,
    false,
    alpha,
    `decided by the gate's own rule (${m.kind === 'ratio' ? 'a ratio, not a sampled rate' : 'no sequential test for this statistic'})`,
  );
}
