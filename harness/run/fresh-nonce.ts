// The runner's side of the fresh-session nonce rule (check/fresh-nonce.ts): remember every booted session's nonce;
// a new session that repeats one fails its cycle (no kill is aimed at it) and is ended; the next cycle boots anew.
import { checkFreshNonce } from '../check/fresh-nonce.js';
import type { Violation } from '../check/heartbeat.js';
import type { CycleEvent } from '../journal/events.js';
import type { HostHandle } from '../session/host-handle.js';
import type { CycleContext } from './cycle.js';
import type { CycleResult } from './cycle-outcome.js';
import { planKill } from '../nemesis/plan.js';
import { judgedCycleEvent } from './cycle-outcome.js';

/** The boot nonces of this run's sessions (a continued run starts with those its journal recorded: continue-run.ts). */
export class FreshNonces {
  private readonly seen: Set<string>;

  /** `earlier`: the nonces of sessions booted before this runner started (none for a new run). */
  constructor(earlier: Iterable<string> = []) {
    this.seen = new Set(earlier);
  }

  /** The violations of a newly booted session's nonce (empty when no earlier session had it); remembers it. */
  check(nonce: string): Violation[] {
    const violations = checkFreshNonce(nonce, this.seen);
    this.seen.add(nonce);
    return violations;
  }

  /**
   * Judge the session `host` just booted for `cycle` (a restored one is not new: skipped). Undefined when its nonce is
   * new; else the cycle's journaled fail result, with the host reaped.
   */
  async judge(
    ctx: Pick<CycleContext, 'scenario' | 'journal' | 'log'>,
    cycle: number,
    host: HostHandle,
    reapMs: number,
  ): Promise<CycleResult | undefined> {
    if (host.restoredFrom !== null || host.nonce === null) return undefined;
    const violations = this.check(host.nonce);
    if (violations.length === 0) return undefined;
    const { phase } = planKill(ctx.scenario, cycle);
    ctx.journal.append({ type: 'cycle-start', cycle, phase });
    await host.reap(reapMs);
    const judged = {
      cycle,
      phase,
      observedPhase: phase,
      downtimeMs: null,
      killStep: Math.max(0, host.maxStep),
      restoredSeq: null,
      restoredStep: null,
      restoreKills: 0,
      violations,
    };
    const event = ctx.journal.append(judgedCycleEvent(judged)) as CycleEvent;
    ctx.log.warn({ cycle, violations: violations.map((v) => v.message) }, 'cycle failed');
    return { event, host: null, restartWith: 'boot' };
  }
}
