// The host-crash fault: the machine dies. Every process of the session is SIGKILLed at one instant, at the planned
// point: the session host's group, its kill list and the warm standbys (a real crash takes them too), so the restore
// comes from a cold host. The store's file system keeps what reached it (for a lost page cache: power-loss). With
// several sessions (issue 36) it takes them all: the sessions meet at the crash (crash-barrier.ts), whose one loop
// kills every session's host; each session then checks that its host died, and resumes as after any kill.
import type { IndeterminateCause } from '../journal/events.js';
import type { HostHandle } from '../session/host-handle.js';
import { goneCause } from '../session/infra-cause.js';
import { down, journalKill, strike, type KillRecord } from './strike.js';
import { gaveUp, journalFault, type CrashMember, type Delivery, type Fault, type FaultContext } from './fault.js';
import { KillPath } from './kill-path.js';

/** TEST-ONLY: a host crash that spares the warm standbys (the negative control of its cold restore). */
export const HOST_CRASH_SPARES_STANDBYS = 'SOAK_TEST_HOST_CRASH_SPARES_STANDBYS';

export const hostCrash: Fault = {
  kind: 'host-crash',
  needsLazyfs: false,
  inject(ctx, host) {
    if (ctx.crash) return crashTogether(ctx, host, ctx.crash);
    const standby = process.env[HOST_CRASH_SPARES_STANDBYS] === '1' ? undefined : ctx.standby;
    return strike(ctx, host, {
      atPoint: (h) => {
        journalFault(ctx, h);
        return Promise.resolve(null);
      },
      send(h) {
        const t = h.kill(); // the session's group and kill list
        standby?.killAll(); // in the same tick: nothing of the machine outlives it
        return t;
      },
      async afterReap() {
        await standby?.discard(ctx.timeouts.hostMs); // reaped: the restore starts a cold host
        return {};
      },
    });
  },
};

/** A crash's loop spares no session: a turn that says so is the harness's failure. */
function spared(cycle: number): IndeterminateCause {
  return { code: 'crash-barrier', message: `cycle ${cycle}: the host crash spared this session` };
}

/** Whether `host` is seen to exit within `ms` (a SIGKILLed host is; one the crash missed is not). */
async function diedWithin(host: HostHandle, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const died = await Promise.race([
    host.died.then(() => true),
    new Promise<boolean>((r) => (timer = setTimeout(() => r(false), ms))),
  ]);
  clearTimeout(timer);
  return died;
}

/** This session's part of a crash of every session: met at the barrier, killed in its loop, its death checked. */
async function crashTogether(ctx: FaultContext, host: HostHandle, crash: CrashMember): Promise<Delivery> {
  const seen: { at?: Omit<KillRecord, 'phase'>; gone?: IndeterminateCause | null } = {};
  const turn = await crash.meet(ctx.cycle, host, () => {
    // just before the loop: what the session had, as strike() reads it before its kill
    seen.gone = goneCause(host, ctx.runDir);
    if (seen.gone === null) journalFault(ctx, host);
    const { maxStep: atStep, inFlightSeq, lastCommitted } = host;
    const observedPhase = inFlightSeq !== null ? 'checkpoint' : 'work';
    seen.at = { observedPhase, atStep, nonce: host.nonce ?? '', lastCommitted, inFlightSeq };
  });
  if (turn.kind !== 'crashed') return gaveUp(host, turn.kind === 'gave-up' ? turn.cause : spared(ctx.cycle));
  if (seen.gone) return gaveUp(host, seen.gone); // it exited before the crash: the machine's, as before any kill
  const k = seen.at!;
  journalKill(ctx.journal, ctx.cycle, { phase: ctx.plan.kill.phase, ...k }, turn.tKill);
  const path = new KillPath(turn.tKill);
  path.mark('journaled');
  ctx.readLatest();
  path.mark('preRead');
  const died = await diedWithin(host, ctx.timeouts.hostMs);
  crash.died(ctx.cycle, died);
  if (!died) {
    await host.reap(ctx.timeouts.hostMs);
    const message = `cycle ${ctx.cycle}: host ${host.pid} outlived the host crash (no exit within ${ctx.timeouts.hostMs} ms of the crash)`;
    return gaveUp(host, { code: 'crash-barrier', message });
  }
  return down(ctx, host, { tKill: turn.tKill, nonce: k.nonce, observedPhase: k.observedPhase, stuck: null, path });
}
