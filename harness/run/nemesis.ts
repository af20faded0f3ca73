// The nemesis: chooses, from a seeded PRNG, where each cycle's kill is aimed and how long after its trigger it lands.
import type { KillPhase } from '../journal/events.js';
import type { Scenario } from '../scenario/scenario.js';
import { createRng } from '../stats/random.js';

export interface KillPlan {
  phase: KillPhase;
  /** Work phase: ms after the session is ready. Other phases: ms of work before the kill that sets the phase up. */
  workDelayMs: number;
  /** Checkpoint phase: ms after a checkpoint write begins. Restore phase: ms after the restore begins. */
  phaseDelayMs: number;
}

/** The plan for cycle `cycle`; a pure function of (seed, cycle), so a resumed or sharded run replays it exactly. */
export function planKill(scenario: Scenario, cycle: number): KillPlan {
  const rng = createRng(scenario.seed, cycle);
  const { phases, workDelayMs, checkpointDelayMs, restoreDelayMs } = scenario.kill;
  const total = phases.work + phases.checkpoint + phases.restore;
  const pick = rng.next() * total;
  const phase: KillPhase =
    pick < phases.work ? 'work' : pick < phases.work + phases.checkpoint ? 'checkpoint' : 'restore';
  const work = rng.uniform(workDelayMs[0], workDelayMs[1]);
  const [lo, hi] = phase === 'restore' ? restoreDelayMs : checkpointDelayMs;
  return { phase, workDelayMs: work, phaseDelayMs: rng.uniform(lo, hi) };
}
