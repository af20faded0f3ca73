// One kill-and-resume cycle: the nemesis plans it (nemesis/plan.ts) and its fault approaches the planned point and
// delivers itself (nemesis/faults.ts); the interruption restores, checks and journals (interruption.ts). The outcome is
// ok, fail (also when the session got stuck while its host answered: session-hung, checkpoint-stuck), or
// indeterminate with its cause when a host hung, died, hit a full disk or a held lock (session/infra-cause.ts). Every
// wait on a host is bounded (README "Timeouts"). The runner only connects the roles; this file holds their order.
import type { Logger } from '../core/logger.js';
import type { WorkloadModel } from '../check/workload.js';
import type { JournalWriter } from '../journal/writer.js';
import type { CrashMember, FaultContext, LazyfsControl } from '../nemesis/fault.js';
import { FAULTS } from '../nemesis/faults.js';
import { planCycle } from '../nemesis/plan.js';
import type { Scenario } from '../scenario/scenario.js';
import { hostTimeouts } from '../scenario/timeouts.js';
import type { HostHandle } from '../session/host-handle.js';
import type { Store } from '../store/store.js';
import { adapterFaulted } from './adapter-fault.js';
import { indeterminate, type CycleResult } from './cycle-outcome.js';
import { carriedOn } from './freeze-cycle.js';
import { interruption } from './interruption.js';
import { approachKill } from './kill-approach.js';
import { readLatest } from './latest.js';
import type { WarmStandby } from './standby.js';

export interface CycleContext {
  scenario: Scenario;
  /** The run's store, opened read-only by the runner (refreshed before each look; reopened after a power loss). */
  store: Store;
  journal: JournalWriter;
  log: Logger;
  model: WorkloadModel;
  /** The run folder (whose disk tells a host that died on a full disk from one that just died). */
  runDir: string;
  /** Start a session host (journals host-start and wires checkpoint events). */
  spawnHost(mode: 'boot' | 'restore' | 'standby' | 'pool', cycle: number): HostHandle;
  /** The warm standbys (scenario `standby: true`): a restore after a kill is handed to a ready one. */
  standby?: WarmStandby;
  /** The lazy file system under the store (power loss, injected write errors); absent unless a listed fault needs it. */
  lazyfs?: LazyfsControl;
  /** This session's part in the run's host crashes (several sessions: nemesis/crash-barrier.ts). */
  crash?: CrashMember;
}

/** Run cycle `cycle` against the running, ready `host`. */
export async function runCycle(ctx: CycleContext, cycle: number, host: HostHandle): Promise<CycleResult> {
  const plan = ctx.crash ? ctx.crash.plan(cycle, ctx.scenario) : planCycle(ctx.scenario, cycle);
  const { phase } = plan.kill;
  ctx.journal.append({ type: 'cycle-start', cycle, phase });
  const timeouts = hostTimeouts(ctx.scenario);
  const fault: FaultContext = {
    ...ctx,
    cycle,
    plan,
    timeouts,
    store: () => ctx.store,
    approach: (h) => approachKill(ctx, h, plan.kill, timeouts),
    readLatest: () => void readLatest(ctx.store),
  };
  const result = await deliver(ctx, fault, host);
  ctx.crash?.settled(cycle, result.event); // the crash it took part in (if any) counts it back, or not
  return result;
}

/** Deliver the cycle's fault to `host` and follow what became of the session to the cycle's outcome. */
async function deliver(ctx: CycleContext, fault: FaultContext, host: HostHandle): Promise<CycleResult> {
  const { cycle, plan, timeouts } = fault;
  const { phase } = plan.kill;
  const delivered = await FAULTS[plan.fault.kind].inject(fault, host);
  switch (delivered.kind) {
    case 'gave-up':
      return indeterminate(ctx, cycle, plan.kill, delivered.host, delivered.cause, delivered.killStep, timeouts.hostMs);
    case 'adapter-fault': // its host died of its adapter's fault before the kill: the cycle fails with it
      return adapterFaulted(ctx, cycle, plan.kill, host, delivered.violation, host.maxStep, timeouts.hostMs);
    case 'carried-on':
      return carriedOn(ctx, cycle, phase, host, delivered, timeouts.hostMs);
    case 'interrupted': {
      const restoreKill = phase === 'restore' ? { restoreKillMs: plan.kill.phaseDelayMs } : {};
      return interruption({ ...ctx, timeouts }, { ...delivered.interrupted, cycle, phase, ...restoreKill });
    }
  }
}
