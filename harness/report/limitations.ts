// Durability limits and scope/limitations, written from the data: what the numbers do not say and what was not measured.
import type { GateResult } from '../gates/types.js';
import { wilson, zeroFailureTrialsNeeded } from '../stats/wilson.js';
import type { RunAnalysis } from '../analysis/summary.js';
import { fmtNum, fmtPct, fmtQuantile } from './text/format.js';
import { downtimeQuantiles } from './findings.js';
import { machinesText } from './provenance.js';

/** "a", "a and b", "a, b and c". */
function joinAnd(items: readonly string[]): string {
  return items.length <= 1 ? items.join('') : `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}

/**
 * Cycles whose plan aimed a kill at the restore (judged, not indeterminate), and how many of those the restore outran:
 * no kill cut it (journals before this rule sent the kill anyway and counted it; its observed phase was not restore).
 */
export function missedRestoreKills(analysis: RunAnalysis): { aimed: number; missed: number } {
  const c = analysis.cycles;
  let aimed = 0;
  let missed = 0;
  for (let i = 0; i < c.phase.length; i++) {
    if (c.phase[i] !== 'restore' || c.outcome[i] === 'indeterminate') continue;
    aimed++;
    if (c.observedPhase[i] !== 'restore' || c.restoreKills[i] === 0) missed++;
  }
  return { aimed, missed };
}

/** Durability limits: lost work since the last checkpoint, torn writes, provider-side state. */
export function durabilityLimits(analysis: RunAnalysis): string[] {
  const s = analysis.summary;
  const lost = s.lostSteps;
  return [
    lost.n > 0
      ? `Work done since the last complete checkpoint is lost at a kill: in this run at most ${fmtNum(lost.max)} steps per kill (mean ${fmtNum(lost.mean)}, n = ${lost.n}).`
      : 'Work done since the last complete checkpoint is lost at a kill; this run measured no lost-work figure.',
    'A checkpoint counts only once its manifest is committed; a write cut off by a kill is never restored, and the session resumes from the checkpoint before it.',
    'Only state inside the session is checkpointed (filesystem, process memory, tool state). Provider-side state (model-provider conversations, remote APIs, anything outside the session) is out of scope: it is neither captured nor checked.',
  ];
}

/** Scope and limitations: one run, one workload, what the sample size cannot support, and what was not measured. */
export function scopeLimitations(analysis: RunAnalysis, gates: readonly GateResult[]): string[] {
  const s = analysis.summary;
  const out = [
    `Measured once, on one workload (scenario ${s.scenario}, seed ${s.seed}, ${s.cycles.total} cycles on ${machinesText(s)}): it says nothing about run-to-run variation.`,
    'A single demonstration is not a recovery-time guarantee: the downtime figures describe this run on this machine under this load.',
  ];
  const kr = s.killResume;
  const bar = 0.95;
  if (kr.trials > 0 && (wilson(kr.successes, kr.trials)?.[0] ?? 0) < bar) {
    const best = wilson(kr.trials, kr.trials)?.[0] ?? 0;
    out.push(
      `With n = ${kr.trials}, even zero failures give a Wilson lower bound of only ${fmtPct(best, 'down')}; ` +
        `at least ${zeroFailureTrialsNeeded(bar)} failure-free cycles are needed to claim ${fmtPct(bar)} or better.`,
    );
  }
  const unbounded = downtimeQuantiles(analysis)
    .filter((e) => e.n > 0 && e.hi === null)
    .map((e) => fmtQuantile(e.q));
  if (unbounded.length > 0)
    out.push(
      `With n = ${s.downtimeMs.n} downtime samples, ${joinAnd(unbounded)} cannot be bounded above: the sample is too small for that tail.`,
    );
  const observed = new Set(analysis.cycles.observedPhase);
  const restoreKills = analysis.cycles.restoreKills.reduce((acc, x) => acc + x, 0);
  if (!observed.has('restore') && restoreKills === 0)
    out.push('No kill landed during a restore, so resuming after an interrupted restore was not measured.');
  const missed = missedRestoreKills(analysis);
  if (missed.missed > 0)
    out.push(
      `${missed.missed} of ${missed.aimed} kills aimed at a restore did not cut one: the restore had ended before the aimed delay (scenario kill.restoreDelayMs), so ${missed.missed === 1 ? 'that cycle was' : 'those cycles were'} judged as a plain resume.`,
    );
  if (s.tornCheckpoint.trials === 0)
    out.push('No kill landed during a checkpoint write, so recovery from a torn checkpoint was not exercised.');
  out.push(
    `No cross-region number: in ${s.sources ? 'each source run' : 'this run'} the session host, the runner and the checkpoint store ran on the same machine, so no network or remote-store latency is included.`,
  );
  const accelerator = s.environment.target['accelerator'];
  if (accelerator === 'tcg')
    out.push(
      'KVM was not used (accelerator: tcg): micro-VM times are software-emulation times and will differ under hardware virtualisation.',
    );
  const runtime = s.environment.target['runtime'];
  const limits = s.environment.target['limitations'];
  if (typeof limits === 'string' && limits.length > 0)
    out.push(
      `What the runtime's checkpoint does not cover (${typeof runtime === 'string' ? runtime : 'its adapter'}, from the adapter's describe): ${limits}.`,
    );
  if (s.target === 'process')
    out.push('The process target checkpoints cooperatively at step boundaries; no micro-VM was measured in this run.');
  if (s.target === 'exec')
    out.push(
      "Invented work (`ahead`) is judged past the steps a resumed sandbox could take from the adapter's restore request to its first full heartbeat (the host cannot see when the sandbox began to run), so the slower the adapter's restore, the more steps past the last one seen are allowed; each is still checked against the workload model.",
    );
  const insufficient = gates.filter((g) => g.verdict === 'insufficient');
  for (const g of insufficient)
    out.push(
      `Gate ${g.id} (${g.title}) had n = ${g.n}, below its minimum of ${g.minN}: reported as insufficient data, not as a pass.`,
    );
  for (const g of gates.filter((x) => x.verdict === 'inconclusive'))
    out.push(
      `Gate ${g.id} (${g.title}): its point estimate and its 95% interval disagree about the bar, so it is inconclusive at 95%, not a pass; more samples will decide it.`,
    );
  if (s.cycles.indeterminate > 0)
    out.push(`${s.cycles.indeterminate} indeterminate cycles are excluded from the success rates.`);
  return out;
}
