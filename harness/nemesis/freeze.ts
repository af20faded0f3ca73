// The freeze fault: SIGSTOP of the session host's whole group (host, agent, tools, QEMU) where the kill would have
// landed, for the planned time, then SIGCONT, and the check that the same session carried on where it stopped. A freeze
// that outlasts the host timeout is a hung host: its group is SIGKILLed and resumed from the newest checkpoint, as
// after a kill. A session stuck on the way is killed at once, not frozen.
import { nowMs, sleep } from '../core/clock.js';
import { checkContinued } from '../check/continued.js';
import type { WorkloadModel } from '../check/workload.js';
import type { Violation } from '../journal/events.js';
import { isFullHeartbeat, type HostHandle } from '../session/host-handle.js';
import { causeOf, sessionFailure } from '../session/infra-cause.js';
import { holdCheckpointWatch } from '../session/checkpoint-watch.js';
import { gaveUp, journalFault, type Delivery, type Fault, type FaultContext } from './fault.js';
import { FREEZE_DEFAULT_MS } from './plan.js';
import { strike } from './strike.js';

export const freeze: Fault = {
  kind: 'freeze',
  needsLazyfs: false,
  inject: (ctx, host) =>
    strike(ctx, host, { atPoint: (h, stuck) => (stuck ? Promise.resolve(null) : freezeAt(ctx, h)) }),
};

/**
 * Deliver the planned freeze to `host`: carried on (thawed and judged: ok, or the checker's violations, or the session
 * died after SIGCONT), gave up (hung after SIGCONT, or gone for the machine's reasons), or null when it outlasted the
 * host timeout: still stopped, it is killed next and resumed.
 */
async function freezeAt(ctx: FaultContext, host: HostHandle): Promise<Delivery | null> {
  journalFault(ctx, host);
  const frozenStep = host.maxStep;
  let r: FreezeResult;
  try {
    r = await freezeHost(host, ctx.plan.fault.durationMs ?? FREEZE_DEFAULT_MS, ctx.timeouts.hostMs, ctx.model);
  } catch (err) {
    const cause = causeOf(err, host, ctx.runDir);
    if (cause) return gaveUp(host, cause);
    const violations = [sessionFailure(err, 'session did not carry on after a freeze')];
    r = { thawed: true, violations, step: host.maxStep, stallMs: 0 };
  }
  if (!r.thawed) {
    ctx.log.debug({ cycle: ctx.cycle, frozenMs: r.frozenMs }, 'freeze outlasted the host timeout: kill and resume');
    return null;
  }
  return { kind: 'carried-on', frozenStep, step: r.step, stallMs: r.stallMs, violations: r.violations };
}

/** Send `signal` to every process of `host`'s session: its group and the (checked again) entries of its kill list. */
export function signalSession(host: Pick<HostHandle, 'pid' | 'signalKillList'>, signal: 'SIGSTOP' | 'SIGCONT'): void {
  try {
    process.kill(-host.pid, signal);
  } catch {
    // gone already
  }
  host.signalKillList(signal);
}

/** How a freeze ended. */
export type FreezeResult =
  /** Thawed: SIGCONT sent; the first full heartbeat after it was checked. */
  | { thawed: true; violations: Violation[]; step: number; stallMs: number }
  /** Outlasted the host timeout: still stopped; the caller kills and resumes. */
  | { thawed: false; frozenMs: number };

/**
 * Freeze `host` for `durationMs` (at most `hostMs`: past it the host counts as hung and stays stopped for the caller to
 * kill), then SIGCONT it (its host asks the target for a full heartbeat on SIGCONT) and check that heartbeat.
 * Rejects as the host's wait does when no full heartbeat comes within `hostMs` of the SIGCONT, or the host exits.
 */
export async function freezeHost(
  host: HostHandle,
  durationMs: number,
  hostMs: number,
  model: WorkloadModel,
): Promise<FreezeResult> {
  const frozenStep = host.maxStep;
  const nonce = host.nonce ?? '';
  const stopped = nowMs();
  const releaseWatch = holdCheckpointWatch(host); // the harness's stop: no checkpoint bound runs through it
  signalSession(host, 'SIGSTOP');
  if (durationMs > hostMs) {
    await sleep(hostMs);
    return { thawed: false, frozenMs: nowMs() - stopped };
  }
  await sleep(durationMs);
  // Listen before SIGCONT: the heartbeat may come in the first read after it.
  const next = host.waitFor(isFullHeartbeat, hostMs, 'full heartbeat after SIGCONT');
  const thawedAt = nowMs();
  signalSession(host, 'SIGCONT');
  releaseWatch();
  const { msg: hb, t } = await next;
  return {
    thawed: true,
    violations: checkContinued({ heartbeat: hb, frozenStep, nonce }, model),
    step: hb.step,
    stallMs: t - thawedAt,
  };
}
