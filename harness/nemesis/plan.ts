// The nemesis plan: which fault, where and when, a pure function of (seed, cycle). From a seeded PRNG it chooses where
// each cycle's kill is aimed and how long after its trigger it lands, and which fault the cycle delivers (faults.ts).
import type { KillPhase } from '../journal/events.js';
import type { FaultEntry, FaultKind, Scenario } from '../scenario/scenario.js';
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

/** The stream of a checkpoint storm's kill delay, apart from the kill plan's and the fault choice's. */
const STORM_STREAM_SALT = 0x73746f72; // "stor"

/**
 * A checkpoint storm's kill in one session (nemesis/checkpoint-storm.ts): in its storm checkpoint's write, a delay
 * after that checkpoint's begin drawn from the scenario's checkpointDelayMs; a pure function of (session seed, cycle).
 */
export function stormKill(scenario: Scenario, cycle: number): KillPlan {
  const [lo, hi] = scenario.kill.checkpointDelayMs;
  const rng = createRng(scenario.seed, (cycle ^ STORM_STREAM_SALT) >>> 0);
  return { phase: 'checkpoint', workDelayMs: 0, phaseDelayMs: rng.uniform(lo, hi) };
}

/** The stream of the fault choice, apart from the kill plan's: adding faults to a scenario keeps its kill plans. */
const FAULT_STREAM_SALT = 0x6661756c; // "faul"

/** How long a freeze lasts when its entry gives no durationMs. */
export const FREEZE_DEFAULT_MS = 2000;

/** A cycle's planned fault; `durationMs` is set for a freeze (how long the host group stays SIGSTOPped). */
export interface FaultPlan {
  kind: FaultKind;
  durationMs?: number;
}

/** Which fault entry cycle `cycle` delivers: a pure function of (seed, cycle); SIGKILL when the scenario lists none. */
export function planFaultEntry(scenario: Pick<Scenario, 'seed' | 'faults'>, cycle: number): FaultPlan {
  const plan = (f: FaultEntry): FaultPlan =>
    f.kind === 'freeze' ? { kind: f.kind, durationMs: f.durationMs ?? FREEZE_DEFAULT_MS } : { kind: f.kind };
  const faults = scenario.faults;
  if (faults.length === 0) return { kind: 'sigkill' };
  const rng = createRng(scenario.seed, (cycle ^ FAULT_STREAM_SALT) >>> 0);
  const total = faults.reduce((sum, f) => sum + f.weight, 0);
  let pick = rng.next() * total;
  for (const f of faults) {
    if (pick < f.weight) return plan(f);
    pick -= f.weight;
  }
  return plan(faults[faults.length - 1]!);
}

/** Which fault kind cycle `cycle` delivers (planFaultEntry's kind). */
export function planFault(scenario: Pick<Scenario, 'seed' | 'faults'>, cycle: number): FaultKind {
  return planFaultEntry(scenario, cycle).kind;
}

/** Injected write errors fail one of the first this-many writes under the store after the cycle begins. */
export const WRITE_FAILURE_WINDOW = 8;

/** Which write (1-based, from the cycle's start) an enospc or eio fault fails: a pure function of (seed, cycle). */
export function planWriteFailure(scenario: Pick<Scenario, 'seed'>, cycle: number): number {
  return createRng(scenario.seed, (cycle ^ FAULT_STREAM_SALT ^ 0xe10) >>> 0).int(1, WRITE_FAILURE_WINDOW);
}

/** A cycle's whole plan: where and when its kill lands, and which fault it delivers. */
export interface CyclePlan {
  kill: KillPlan;
  fault: FaultPlan;
}

/** The plan of cycle `cycle`: a pure function of (seed, cycle). */
export function planCycle(scenario: Scenario, cycle: number): CyclePlan {
  return { kill: planKill(scenario, cycle), fault: planFaultEntry(scenario, cycle) };
}
