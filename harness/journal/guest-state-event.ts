// The guest-state event (issue 33): what the guest-state probe (check/survival.ts) saw of each class after one judged
// resume of a soak; kept beside events.ts so the journal's event list stays one screen.
import type { Observation } from '../check/survival.js';

/**
 * How the resume was examined: by the probe's holder or a new process (check/survival.ts ProbeReport's modes),
 * `unprobed` (the target cannot run the probe: every class not-applicable, with the reason) or `unexamined` (the
 * session ended, or the probe failed, before its examination: `problem` says which; no observation).
 */
export const GUEST_STATE_MODES = ['holder', 'restarted', 'unprobed', 'unexamined'] as const;

/** A guest-state event's own fields. */
export interface GuestStateEventFields {
  /** The cycle whose restore the examination followed. */
  cycle: number;
  mode: (typeof GUEST_STATE_MODES)[number];
  observations: Observation[];
  problem?: string;
}

/** One examination of the guest state after a resume (the head as events.ts's Base: schema version 1). */
export interface GuestStateEvent extends GuestStateEventFields {
  schemaVersion: 1;
  t: number;
  type: 'guest-state';
  session?: number; // as events.ts's Base
}
