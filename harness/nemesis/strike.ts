// The kill every fault delivers or ends in: approach the planned point, let the fault act there, SIGKILL the session
// and journal the kill in the same tick (nothing stands between the plan and the signal), then reap the host's group
// and collect what the restore is judged with, timing each step (kill-path.ts).
import type { KillPhase, Violation } from '../journal/events.js';
import type { JournalWriter } from '../journal/writer.js';
import type { HostHandle } from '../session/host-handle.js';
import { adapterFaultViolation, goneCause } from '../session/infra-cause.js';
import { gaveUp, type Delivery, type FaultContext, type Interrupted } from './fault.js';
import { KillPath } from './kill-path.js';

/** How a fault shapes the one kill; each step is optional (none: a plain SIGKILL at the planned point). */
export interface StrikeSteps {
  /** At the planned point, before the kill (`stuck`: the session got stuck on the way): a Delivery ends the cycle there. */
  atPoint?: (host: HostHandle, stuck: Violation | null) => Promise<Delivery | null>;
  /** Send the kill, returning the monotonic time it went (default: SIGKILL of the host's group and kill list). */
  send?: (host: HostHandle) => number;
  /** Read the store's newest while the host dies (default true; false when the fault changes the store after it). */
  readsStoreEarly?: boolean;
  /** Once the killed group is reaped, before the restore (a power loss, a check of the store). */
  afterReap?: (host: HostHandle) => Promise<Pick<Interrupted, 'damage' | 'acknowledgedSeq'>>;
}

/** A kill as the journal records it. */
export interface KillRecord {
  phase: KillPhase;
  observedPhase: KillPhase;
  atStep: number;
  nonce: string;
  lastCommitted: { seq: number; step: number } | null;
  inFlightSeq: number | null;
}

/** Journal a kill, timed at `sentAt` (when the signal went) when given. */
export function journalKill(journal: JournalWriter, cycle: number, k: KillRecord, sentAt?: number): void {
  journal.append(
    {
      type: 'kill',
      cycle,
      phase: k.phase,
      observedPhase: k.observedPhase,
      atStep: k.atStep,
      nonce: k.nonce,
      lastCommittedSeq: k.lastCommitted?.seq ?? 0,
      lastCommittedStep: k.lastCommitted?.step ?? 0,
      inFlightSeq: k.inFlightSeq,
    },
    sentAt === undefined ? {} : { at: sentAt },
  );
}

/** Approach the planned point on `host`, let the fault act (`steps`), kill and reap: what became of the session. */
export async function strike(ctx: FaultContext, host: HostHandle, steps: StrikeSteps = {}): Promise<Delivery> {
  const approach = await ctx.approach(host);
  if (approach.kind === 'host') return gaveUp(host, approach.cause);
  if (approach.kind === 'adapter') return { kind: 'adapter-fault', violation: approach.violation };
  const gone = goneCause(host, ctx.runDir);
  if (gone) return gaveUp(host, gone);
  const adapterFault = host.exited ? adapterFaultViolation(host) : null;
  if (adapterFault) return { kind: 'adapter-fault', violation: adapterFault };
  const stuck = approach.stuck;
  const nonce = host.nonce ?? '';
  const observedPhase: KillPhase = host.inFlightSeq !== null ? 'checkpoint' : 'work';
  const ended = await steps.atPoint?.(host, stuck);
  if (ended) return ended;
  const [atStep, inFlightSeq] = [host.maxStep, host.inFlightSeq];
  const tKill = steps.send ? steps.send(host) : host.kill();
  const phase = ctx.plan.kill.phase;
  journalKill(
    ctx.journal,
    ctx.cycle,
    { phase, observedPhase, atStep, nonce, lastCommitted: host.lastCommitted, inFlightSeq },
    tKill,
  );
  const path = new KillPath(tKill);
  path.mark('journaled');
  // While the host dies, resolve what it committed so far: the read that counts, once it is gone, has only a rename
  // in flight at the SIGKILL left.
  if (steps.readsStoreEarly !== false) ctx.readLatest();
  path.mark('preRead');
  return down(ctx, host, { tKill, nonce, observedPhase, stuck, path }, steps.afterReap);
}

/**
 * The session on `host` is down (killed at `at.tKill`, or failed on its own): reap its group (its output read to the
 * end), cancel an injected write error the restore must not meet, run the fault's `afterReap`, and say what the
 * restore is judged with.
 */
export async function down(
  ctx: FaultContext,
  host: HostHandle,
  at: Pick<Interrupted, 'tKill' | 'nonce' | 'observedPhase' | 'stuck' | 'path' | 'infraCause'>,
  afterReap?: StrikeSteps['afterReap'],
): Promise<Delivery> {
  await host.reap(ctx.timeouts.hostMs);
  at.path?.mark('reaped');
  const adapterFault = adapterFaultViolation(host); // it died of its adapter's fault as the kill was sent
  if (host.diedAt !== null) at.path?.note('exitSeenAfterKill', host.diedAt - at.tKill);
  ctx.lazyfs?.clearFailWrite();
  const killStep = host.maxStep;
  const after = (await afterReap?.(host)) ?? {};
  const work = host.workFailures === null ? {} : { workBefore: host.workFailures };
  const interrupted: Interrupted = {
    ...at,
    killStep,
    lastCommitted: host.lastCommitted,
    adapterFault,
    ...work,
    ...after,
  };
  return { kind: 'interrupted', interrupted };
}
