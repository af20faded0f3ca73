// The process agent's external effects (issue 34): at the seeded effect steps it calls the world (the run's effect
// ledger) once per key discipline and, once acknowledged, records the effect in its memory (what a checkpoint carries)
// and in workspace/effects.txt: a checkpoint holds what the agent believes the world has seen.
import { randomBytes } from 'node:crypto';
import { appendFileSync } from 'node:fs';
import path from 'node:path';
import { LedgerClient } from '../../effects/client.js';
import {
  DISCIPLINES,
  effectId,
  isEffectStep,
  LEDGER_TOKEN_ENV,
  stepKey,
  type Discipline,
  type EffectsConfig,
} from '../../effects/plan.js';

/** What the agent believes the world has seen: every effect acknowledged through step `through`, counted by discipline. */
export interface EffectState {
  through: number;
  acked: Record<Discipline, number>;
}

/** The effect state of a new session. */
export function freshEffectState(): EffectState {
  return { through: 0, acked: { 'step-key': 0, 'random-key': 0, 'no-key': 0 } };
}

/** The agent's effects: `--effects <json>` (EffectsConfig) turns them on. */
export class AgentEffects {
  private readonly client: LedgerClient;
  /** This agent process: a resumed session is a new incarnation. */
  readonly incarnation = randomBytes(8).toString('hex');
  private readonly file: string;

  constructor(
    private readonly cfg: EffectsConfig,
    workspace: string,
  ) {
    this.client = new LedgerClient(cfg.ledger, process.env[LEDGER_TOKEN_ENV] ?? '');
    this.file = path.join(workspace, 'effects.txt');
  }

  /** At step `step` of session `nonce`: emit its effects (if it is an effect step) and record each acknowledgement. */
  async atStep(nonce: string, step: number, state: EffectState): Promise<void> {
    if (!isEffectStep(this.cfg.seed, step, this.cfg.everySteps)) return;
    for (const discipline of DISCIPLINES) {
      const key =
        discipline === 'step-key'
          ? stepKey(nonce, step)
          : discipline === 'random-key'
            ? randomBytes(16).toString('hex')
            : null;
      const effect = effectId(discipline, step);
      const r = await this.client.emit({
        session: nonce,
        incarnation: this.incarnation,
        effect,
        discipline,
        key,
        step,
      });
      state.acked[discipline]++;
      appendFileSync(this.file, `${effect} seq ${r.seq} ${r.applied ? 'applied' : 'deduplicated'}\n`);
    }
    state.through = step;
  }

  /** What a full heartbeat says of the effects: the restored state's claim, and which agent process makes it. */
  claim(state: EffectState): EffectState & { incarnation: string } {
    return { through: state.through, acked: { ...state.acked }, incarnation: this.incarnation };
  }
}
