// A cycle's approach to its planned kill: the work delay (and a starting standby), then for a kill aimed at a
// checkpoint write its begin and the aimed delay, raced against the host's checkpoint watch: a session stuck on the way
// (a checkpoint past its bound, or none begun while its host answers) is killed at once and fails the cycle; a host
// that stopped answering ends it indeterminate (host-hung). The fault being delivered calls it (nemesis/strike.ts).
import { sleep } from '../core/clock.js';
import { SessionHungError } from '../core/errors.js';
import { isEv, type HostHandle } from '../session/host-handle.js';
import type { Store } from '../store/store.js';
import { stuckCheckpoint } from '../session/checkpoint-watch.js';
import { workDelay } from './latest.js';
import type { Approach } from '../nemesis/fault.js';
import type { KillPlan } from '../nemesis/plan.js';
import { adapterFaultViolation, causeOf, sessionFailure } from '../session/infra-cause.js';
import type { HostTimeouts } from '../scenario/timeouts.js';

/** What the approach needs of the cycle's context. */
export interface ApproachContext {
  store: Store;
  runDir: string;
  standby?: { whenReady(): Promise<void> };
}

/** Approach the kill planned by `plan` on `host` (the caller kills it next unless the host is hung). */
export function approachKill(
  ctx: ApproachContext,
  host: HostHandle,
  plan: Pick<KillPlan, 'phase' | 'workDelayMs' | 'phaseDelayMs'>,
  timeouts: HostTimeouts,
): Promise<Approach> {
  const watched = stuckCheckpoint(host).then((s): Approach =>
    s.kind === 'session' ? { kind: 'kill', stuck: s.violation } : s,
  );
  const planned = (async (): Promise<Approach> => {
    // a standby still starting delays the kill until it is ready (bounded), so every planned kill meets a warm one
    await workDelay(host, () => ctx.store, plan.workDelayMs, ctx.standby?.whenReady());
    if (plan.phase !== 'checkpoint') return { kind: 'kill', stuck: null };
    try {
      await host.waitFor(isEv('ckpt-begin'), timeouts.hostMs, 'checkpoint-begin');
    } catch (err) {
      const cause = causeOf(err, host, ctx.runDir);
      if (cause) return { kind: 'host', cause };
      if (err instanceof SessionHungError) return { kind: 'kill', stuck: sessionFailure(err) };
      const fault = adapterFaultViolation(host);
      if (fault) return { kind: 'adapter', violation: fault };
      throw err;
    }
    if (plan.phaseDelayMs > 0) await sleep(plan.phaseDelayMs);
    return { kind: 'kill', stuck: null };
  })();
  // the loser runs out on its own (a wait on a killed host rejects into Promise.race's handler: never unhandled)
  return Promise.race([planned, watched]);
}
