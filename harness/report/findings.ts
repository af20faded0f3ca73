// What was measured, as plain sentences: every claim an interval with its n (escaped later by the HTML or Markdown renderer).
import { wilson } from '../stats/wilson.js';
import type { RunAnalysis, Summary } from '../analysis/summary.js';
import { fmtBytes, fmtMs, fmtNum, fmtPctInterval } from './text/format.js';
import { quantileWithCi, type QuantileEstimate } from '../stats/quantile-ci.js';

/** "k of n <noun> (Wilson 95%: lo-hi)". */
export function rateClause(successes: number, trials: number, noun: string): string {
  return `${successes} of ${trials} ${noun} (Wilson 95%: ${fmtPctInterval(wilson(successes, trials))})`;
}

/** "212 ms (95% CI 198 ms-230 ms)"; an unbounded side is written as "< min" or "> max of the sample". */
export function quantileClause(e: QuantileEstimate): string {
  if (e.value === null) return 'n/a';
  const lo = e.lo === null ? 'below the sample' : fmtMs(e.lo);
  const hi = e.hi === null ? 'above the sample max' : fmtMs(e.hi);
  return `${fmtMs(e.value)} (95% CI ${lo}–${hi})`;
}

/** Downtime quantile estimates with order-statistic intervals from the raw samples. */
export function downtimeQuantiles(analysis: RunAnalysis): QuantileEstimate[] {
  return [0.5, 0.9, 0.95, 0.99].map((q) => quantileWithCi(analysis.downtimes, q));
}

/** The "what was measured" bullets. */
export function findings(analysis: RunAnalysis): string[] {
  const s = analysis.summary;
  const out: string[] = [];
  const kr = s.killResume;
  if (s.manualKills)
    out.push(
      `${s.cycles.total} interruptions typed by a person (soak demo: kill -9 by hand or the page's button, not planned by the nemesis), ` +
        `${kr.successes} resumed and verified: ${rateClause(kr.successes, kr.trials, 'judged')}. Downtime is timed from the moment the demo noticed each death.`,
    );
  out.push(
    kr.trials > 0
      ? `Kill-and-resume succeeded in ${rateClause(kr.successes, kr.trials, 'cycles')}.`
      : 'No kill-and-resume cycle completed, so no success rate was measured.',
  );
  if (s.cycles.indeterminate > 0)
    out.push(
      `${s.cycles.indeterminate} of ${s.cycles.total} cycles were indeterminate: an infrastructure fault (listed with its cause below), not a consistency failure, and counted in no rate.`,
    );
  const d = s.downtimeMs;
  if (d.n > 0) {
    const [p50, , p95, p99] = downtimeQuantiles(analysis);
    out.push(
      `Downtime from kill to first verified heartbeat, n = ${d.n}: p50 ${quantileClause(p50 as QuantileEstimate)}, ` +
        `p95 ${quantileClause(p95 as QuantileEstimate)}, p99 ${quantileClause(p99 as QuantileEstimate)}; max ${fmtMs(d.max)}, mean ${fmtMs(d.mean)}.`,
    );
  } else {
    out.push('No downtime was measured (no session resumed).');
  }
  if (s.lostSteps.n > 0)
    out.push(
      `Work lost per kill, n = ${s.lostSteps.n}: at most ${fmtNum(s.lostSteps.max)} steps, mean ${fmtNum(s.lostSteps.mean)} steps.`,
    );
  const torn = s.tornCheckpoint;
  if (torn.trials > 0)
    out.push(
      `Kills during a checkpoint write: ${rateClause(torn.previousRestored, torn.trials, 'resumed from the previous complete checkpoint')}.`,
    );
  const nonce = s.noncePreserved;
  if (nonce.trials > 0) {
    const tail =
      nonce.preserved === nonce.trials
        ? ': no fresh boot passed as a resume'
        : `: ${nonce.trials - nonce.preserved} resumes came back as fresh boots`;
    out.push(`The in-memory boot nonce survived ${rateClause(nonce.preserved, nonce.trials, 'resumes')}${tail}.`);
  }
  const pause = s.checkpointPauseMs;
  const write = s.checkpointWriteMs;
  if (pause.n > 0)
    out.push(
      `Checkpoint pause, n = ${pause.n}: p50 ${fmtMs(pause.p50)}, p95 ${fmtMs(pause.p95)}, max ${fmtMs(pause.max)}; write p50 ${fmtMs(write.p50)}, p95 ${fmtMs(write.p95)}.`,
    );
  const restore = s.restoreMs;
  if (restore.n > 0)
    out.push(
      `Restore, n = ${restore.n}: p50 ${fmtMs(restore.p50)}, p95 ${fmtMs(restore.p95)}, max ${fmtMs(restore.max)}.`,
    );
  const dd = s.dedup;
  if (dd.checkpoints > 0) {
    const factor = dd.storedBytes > 0 ? ` (${fmtNum(dd.logicalBytes / dd.storedBytes, 1)}× smaller)` : '';
    const committed = dd.committed ?? dd.checkpoints;
    const missed =
      committed > dd.checkpoints
        ? ` The store committed ${committed} (as soak store stats counts them): ${committed - dd.checkpoints} more whose host was killed before reporting them, so their bytes are in neither total here.`
        : ` The store committed ${committed}, as soak store stats counts them.`;
    out.push(
      `Dedup over ${dd.checkpoints} journaled checkpoints: ${fmtBytes(dd.logicalBytes)} logical, ${fmtBytes(dd.storedBytes)} stored${factor}.${missed}`,
    );
  }
  out.push(
    s.violations === 0
      ? `Checker violations: 0 in ${s.cycles.total} cycles.`
      : `Checker violations: ${s.violations} in ${s.cycles.total} cycles, e.g. ${s.violationSamples.slice(0, 3).join('; ')}.`,
  );
  const rc = recheckFinding(s.recheck);
  if (rc !== null) out.push(rc);
  return out;
}

/** What judging the cycles again from their journaled observations found (null: an older summary). */
function recheckFinding(r: Summary['recheck']): string | null {
  if (r === undefined) return null;
  if (r.rechecked === 0)
    return 'Verdicts as journaled by the runner: no cycle has a journaled observation to judge again from.';
  const head = `Verdicts judged again from the journaled observations of ${r.rechecked} cycles with this build's checker`;
  if (r.changed === 0) return `${head}: all ${r.agreed} agree with the runner's.`;
  const listed = r.changedCycles.join(', ') + (r.changed > r.changedCycles.length ? ', ...' : '');
  return `${head}: ${r.changed} differ from the runner's (cycles ${listed}); this report's figures count the re-checked verdicts (\`soak check\` lists each change).`;
}
