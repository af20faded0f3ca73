// Build GateEvidence from an analysed run: raw samples for bootstrap intervals and per-cycle lost work for gate 7.
import type { GateEvidence } from './gate-types.js';
import type { RunAnalysis } from './summary-types.js';

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
  const pauses = analysis.checkpoints.map((c) => c.pauseMs);
  const writes = analysis.checkpoints.map((c) => c.writeMs);
  const evidence: GateEvidence = {
    samples: { downtimeMs: analysis.downtimes, checkpointPauseMs: pauses, checkpointWriteMs: writes },
    lostStepsPerCycle: analysis.cycles.filter((c) => c.lostSteps !== null).map((c) => c.lostSteps),
    seed,
  };
  if (cadence !== undefined) {
    const slowest = Math.max(0, ...pauses) + Math.max(0, ...writes);
    evidence.maxLostSteps = Math.ceil((cadence.checkpoint.everyMs + slowest) / cadence.stepMs) + 1;
  }
  return evidence;
}
