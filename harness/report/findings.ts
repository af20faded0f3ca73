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
  const boot = bootFinding(analysis);
  if (boot !== null) out.push(boot);
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
  const dedup = dedupFinding(s.dedup);
  if (dedup !== null) out.push(dedup);
  out.push(
    s.violations === 0
      ? `Checker violations: 0 in ${s.cycles.total} cycles.`
      : `Checker violations: ${s.violations} in ${s.cycles.total} cycles, e.g. ${s.violationSamples.slice(0, 3).join('; ')}.`,
  );
  const faults = s.adapterFaults;
  if (faults !== undefined && faults.count > 0)
    out.push(
      `Adapter faults (the exec adapter broke the target protocol; counted apart from checker violations): ${faults.count}, the first: ${faults.samples[0] ?? ''}.`,
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

/** Boot time with its n, and how many of the boots were boot samples (scenario bootSamples) and how many session boots. */
function bootFinding(analysis: RunAnalysis): string | null {
  const b = analysis.summary.bootMs;
  if (b.n === 0) return null;
  const samples = analysis.summary.bootSamples ?? 0;
  const sessions = b.n - samples;
  const what =
    samples > 0
      ? ` (${samples} boot samples, throwaway sessions booted before the cycles, and ${sessions} session boot${sessions === 1 ? '' : 's'})`
      : ` (session boot${b.n === 1 ? '' : 's'} only; no boot samples)`;
  const p95 = analysis.samples ? quantileClause(quantileWithCi(analysis.samples.bootMs, 0.95)) : fmtMs(b.p95);
  return `Boot to the first full heartbeat, n = ${b.n}${what}: p50 ${fmtMs(b.p50)}, p95 ${p95}, max ${fmtMs(b.max)}.`;
}

/**
 * The checkpoint count and dedup figures, saying which definition they follow: the store's committed checkpoints as
 * `soak store stats` counts them (from run-end), or, without that, the journaled ones with a lower bound on the committed.
 */
function dedupFinding(dd: Summary['dedup']): string | null {
  if (dd.checkpoints === 0) return null;
  const factor = dd.storedBytes > 0 ? ` (${fmtNum(dd.logicalBytes / dd.storedBytes, 1)}× smaller)` : '';
  const bytes = `${fmtBytes(dd.logicalBytes)} logical, ${fmtBytes(dd.storedBytes)} stored${factor}`;
  const journaled = dd.journaled ?? dd.checkpoints;
  if (dd.counted === 'store') {
    const unreported = dd.checkpoints - journaled;
    const tail =
      unreported > 0
        ? ` ${journaled} of them were journaled with their pause and write times; ${unreported} more were committed by hosts killed before reporting them.`
        : '';
    return `Checkpoints committed to the store by the end of the run (a manifest in place, as soak store stats counts them): ${dd.checkpoints}, ${bytes}.${tail}`;
  }
  const committed = dd.committed ?? dd.checkpoints;
  const atLeast =
    committed > dd.checkpoints
      ? ` The store committed at least ${committed}: ${committed - dd.checkpoints} more whose host was killed before reporting them, so their bytes are in neither total here.`
      : '';
  return `Dedup over ${dd.checkpoints} journaled checkpoints: ${bytes}.${atLeast} The run recorded no store count at its end, so these are the journal's figures; soak store stats on the run folder gives the store's.`;
}
