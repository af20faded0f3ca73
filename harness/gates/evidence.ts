// Build GateEvidence from an analysed run: raw samples (downtime, pause, write, boot, restore) for the intervals of distribution stats and per-cycle lost work for gate 7.
import type { GateEvidence } from './types.js';
import type { RunAnalysis } from '../analysis/summary.js';

/** The scenario fields that set how much work one checkpoint interval may lose. */
export interface CadenceInput {
  stepMs: number;
  checkpoint: { everyMs: number };
}

/**
 * Evidence from a run's analysis. With a cadence, a cycle may lose at most
 * ceil((everyMs + longest checkpoint pause + longest write) / stepMs) + 1 steps: one interval, plus a write in flight, plus one step.
 */
export function gateEvidenceFromAnalysis(analysis: RunAnalysis, cadence?: CadenceInput, seed = 1): GateEvidence {
  const { pauseMs, writeMs } = analysis.checkpoints;
  const lostSteps = analysis.cycles.lostSteps.filter((x) => !Number.isNaN(x));
  const evidence: GateEvidence = {
    samples: {
      downtimeMs: analysis.downtimes,
      checkpointPauseMs: pauseMs,
      checkpointWriteMs: writeMs,
      bootMs: analysis.samples?.bootMs,
      restoreMs: analysis.samples?.restoreMs,
    },
    lostStepsPerCycle: Array.from(lostSteps),
    seed,
    ...(analysis.perSession !== undefined ? { sessions: analysis.perSession.map((a) => a.summary) } : {}),
  };
  if (cadence !== undefined) {
    const slowest = maxOrZero(pauseMs) + maxOrZero(writeMs);
    evidence.maxLostSteps = Math.ceil((cadence.checkpoint.everyMs + slowest) / cadence.stepMs) + 1;
  }
  return evidence;
}

/** The largest value, or 0 for none (a loop: spreading a million values into Math.max overflows the stack). */
function maxOrZero(values: Float64Array): number {
  let max = 0;
  for (let i = 0; i < values.length; i++) if (values[i]! > max) max = values[i]!;
  return max;
}
