// The effects event (issue 34): one accounting of the run's external effects after a resume (run/effects-run.ts),
// counts per key discipline; kept beside events.ts so the journal's event list stays one screen.

/** One discipline's counts in one accounting (effects/accounting.ts says what each means). */
export interface EffectCounts {
  emitted: number;
  first: number;
  reEmitted: number;
  duplicates: number;
  deduplicated: number;
  worldAhead: number;
  lost: number;
}

/** The key disciplines an effects event counts, in its order. */
export const EFFECT_DISCIPLINES = ['step-key', 'random-key', 'no-key'] as const;

/** An effects event's own fields. */
export interface EffectsEventFields {
  cycle: number;
  /** The restored state's last step with acknowledged effects (null: the run's last session, counted at its end). */
  restoredThrough: number | null;
  /** Agent processes whose requests this accounting counted. */
  incarnations: number;
  disciplines: Record<(typeof EFFECT_DISCIPLINES)[number], EffectCounts>;
  /**
   * A clone's accounting (run/effects-clone.ts): a second session restored from the session's checkpoint while it ran
   * on; restoredThrough is the step the clone restored, `duplicates` the applications the clone caused.
   */
  clone?: true;
}

/** One accounting of the run's external effects after a resume (the head as events.ts's Base: schema version 1). */
export interface EffectsEvent extends EffectsEventFields {
  schemaVersion: 1;
  t: number;
  type: 'effects';
  session?: number; // as events.ts's Base
}
