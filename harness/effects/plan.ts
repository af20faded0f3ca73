// Which steps of the workload emit external effects, under which key disciplines, and the keys they carry: pure
// functions of (seed, step) and the session's nonce, shared by the process agent and the effect accounting.
import { createHash } from 'node:crypto';
import { EFFECT_DISCIPLINES } from '../journal/effects-event.js';

/**
 * The three habits an agent may have when it calls the world: a key derived from the session and the step (the safe
 * habit of durable-execution systems), a key drawn from random bytes when the call is made, no key at all.
 */
export const DISCIPLINES = EFFECT_DISCIPLINES;
/** One of DISCIPLINES. */
export type Discipline = (typeof DISCIPLINES)[number];

/**
 * The environment variable that carries the ledger's token from the runner to its hosts and their agents: never on a
 * command line, which every local user can read (`ps`); a process's environment only its owner can.
 */
export const LEDGER_TOKEN_ENV = 'SOAK_EFFECT_LEDGER_TOKEN';

/** What an agent needs to emit effects: the ledger's address, the run's seed and the effect rate (the token: env). */
export interface EffectsConfig {
  /** host:port of the run's effect ledger (127.0.0.1). */
  ledger: string;
  seed: number;
  /** On average one effect step in this many steps. */
  everySteps: number;
}

/** True when `step` emits effects (one per discipline): a pure function of (seed, step), about 1 in `everySteps`. */
export function isEffectStep(seed: number, step: number, everySteps: number): boolean {
  if (step < 1) return false;
  const h = createHash('sha256').update(`effects:${seed}:${step}`).digest();
  return h.readUInt32BE(0) % everySteps === 0;
}

/** True when the resume of `cycle` is cloned (scenario effects.clones): a pure function of (seed, cycle), 1 in `every`. */
export function isCloneCycle(seed: number, cycle: number, every: number): boolean {
  return createHash('sha256').update(`clone:${seed}:${cycle}`).digest().readUInt32BE(0) % every === 0;
}

/** The effect steps in [1, through], in order. */
export function effectStepsThrough(seed: number, through: number, everySteps: number): number[] {
  const out: number[] = [];
  for (let s = 1; s <= through; s++) if (isEffectStep(seed, s, everySteps)) out.push(s);
  return out;
}

/** A logical effect's id within its session: `<discipline>:<step>` (the same id on every re-emission). */
export function effectId(discipline: Discipline, step: number): string {
  return `${discipline}:${step}`;
}

/** The step-key discipline's idempotency key: derived from the session nonce, the step and the discipline only. */
export function stepKey(nonce: string, step: number): string {
  return createHash('sha256').update(`effect:${nonce}:${step}:step-key`).digest('hex').slice(0, 32);
}
