// The runner loop: the observer. Runs the given cycles in order against one session (booted or restored), journals
// every event as it happens (written at once, fsynced by group commit; a cycle's events are durable before the next
// cycle starts, so --resume, which trusts only finished cycles, never loses one), and stops cleanly when asked
// (opts.stop: Ctrl-C, SIGTERM) or when the time budget runs out. A host that hangs, dies or hits a full disk costs
// one indeterminate cycle, not the run; any other error aborts it, and run-end says so ('aborted' with the reason).
// Preparing the run folder is soak.ts's job (a new run) or continue-run.ts's (--resume: a dead runner's run).
import { rmSync } from 'node:fs';
import path from 'node:path';
import { nowMs } from '../core/clock.js';
import { diskErrno, DiskError, SessionHungError } from '../core/errors.js';
import { createLogger } from '../core/logger.js';
import { WorkloadModel } from '../check/workload.js';
import type { JournalWriter } from '../journal/writer.js';
import type { HostHandle } from '../session/host-handle.js';
import type { Scenario } from '../scenario/scenario.js';
import { Store } from '../store/store.js';
import { runCycle, type CycleContext } from './cycle.js';
import { indeterminate, judgedCycleEvent, type CycleResult } from './cycle-outcome.js';
import { adapterFaultViolation, causeOf, sessionFailure } from '../session/infra-cause.js';
import { hostTimeouts, type HostTimeouts } from '../scenario/timeouts.js';
import { planKill } from '../nemesis/plan.js';
import { needsLazyfs } from '../nemesis/faults.js';
import { clearLazyfsOwner, mountRecorded, unmountStaleLazyfs } from '../nemesis/lazyfs-orphans.js';
import { injectedRunnerError } from './test-faults.js';
import type { CycleEvent, RunEndEvent, RunStatus } from '../journal/events.js';
import { hostConfig, journaledHosts, startSession, type SpawnHost } from './host-journal.js';
import type { Progress } from './progress.js';
import { LoadSampling } from './load-sampling.js';
import type { RunPaths } from './run-folder.js';
import { runBootSamples } from './boot-samples.js';
import { FreshNonces } from './fresh-nonce.js';
import { storeTally } from './store-tally.js';
import { WarmStandby } from './standby.js';
import { RunEffects } from './effects-run.js';
import { RunProbes } from './probe-run.js';
import { maybeClone } from './effects-clone.js';
import type { CrashMember } from '../nemesis/fault.js';
import { soloSqueeze, type MemoryPressure } from '../nemesis/memory-pressure.js';
import { adapterFaulted, orAdapterError } from './adapter-fault.js';

/** How the caller follows and stops a run. */
export interface RunControl {
  progress: Progress;
  /** Set to true (the caller's SIGINT/SIGTERM handler: stop-signals.ts) to stop after the current cycle. */
  stop: { requested: boolean };
  logLevel: 'debug' | 'info' | 'warn' | 'silent';
  /**
   * For a scenario with untilDecided: asked after each cycle is durable, returns what decided the verdict ("every
   * gate", or the gate that failed) to stop the run there, or null to go on (the command judges the journal so far).
   */
  decide?: (runDir: string) => Promise<string | null>;
  /** This session's part in the run's host crashes (several sessions: nemesis/crash-barrier.ts). */
  crash?: CrashMember;
  /** The run's memory squeezes (several sessions: sessions.ts; one: made here): its hosts join their cgroup. */
  squeeze?: MemoryPressure;
}

/** How a run (or this invocation's part of it) ended. */
export interface RunResult {
  runDir: string;
  status: RunStatus;
  /** Cycles run by this invocation. */
  cycles: number;
}

/** Run `cycles` in order against one session, starting it by boot or by restoring the newest checkpoint. */
export async function runCycles(
  opts: RunControl,
  paths: RunPaths,
  journal: JournalWriter,
  scenario: Scenario,
  cycles: number[],
  firstStart: 'boot' | 'restore',
  /** Boot sample ids to run before the cycles (boot-samples.ts). */
  bootSamples: readonly number[] = [],
  /** The nonces of the run's sessions so far (a continued run's, from its journal: continue-run.ts). */
  nonces: FreshNonces = new FreshNonces(),
): Promise<RunResult> {
  const log = createLogger(paths.runLog, opts.logLevel).child({ run: path.basename(paths.dir) });
  // A dead runner's lazyfs mounts (this run's, when resuming, or another run's) go first.
  const stale = await unmountStaleLazyfs();
  if (stale.length > 0) log.warn({ mountpoints: stale }, 'unmounted lazyfs mounts left by a runner that died');
  // With power-loss faults the store folder is lazyfs's backing; runner and hosts use it through the mount.
  const lazy = needsLazyfs(scenario) ? await mountRecorded(paths.dir, paths.store, 'store-live') : null;
  const live: RunPaths = lazy ? { ...paths, store: lazy.mountpoint } : paths;
  const timeouts = hostTimeouts(scenario);
  const effects = await RunEffects.start(paths.dir, scenario); // the ledger serves before any host could emit
  const probes = await RunProbes.start(scenario); // the probe binary built before any host needs it
  const withEffects = effects ? { ...scenario, targetOptions: effects.targetOptions(scenario) } : scenario;
  const hosted = probes ? probes.hosted(withEffects) : withEffects;
  const hostCfg = hostConfig(hosted, live);
  // one session's memory squeezes (several sessions share the run's: sessions.ts)
  const solo = opts.crash ? null : await soloSqueeze(scenario, journal, path.basename(paths.dir));
  const squeeze = opts.squeeze ?? solo?.squeeze;
  const journaled = journaledHosts(journal, hostCfg, paths.hostLog, timeouts);
  const spawnHost: SpawnHost = (mode, c) => {
    const h = journaled(mode, c);
    squeeze?.spawned(h, mode); // it joins the run's memory cgroup before it starts its agent
    return h;
  };
  const lease = (): Store => Store.open(live.store, { purpose: 'run lease' }); // held for the whole run: gc refuses
  const ctx: CycleContext = {
    scenario,
    store: lease(),
    journal,
    log,
    model: new WorkloadModel(),
    runDir: paths.dir,
    spawnHost,
    ...(opts.crash || solo ? { crash: opts.crash ?? solo!.crash } : {}),
  };
  // two standbys when the plan kills during restores: the restore after such a kill finds a warm host as well
  const standbys = scenario.kill.phases.restore > 0 ? 2 : 1;
  const waiting = scenario.standby === 'pool' ? 'pool' : 'standby';
  if (scenario.standby) ctx.standby = new WarmStandby((c) => spawnHost(waiting, c), timeouts.hostMs, log, standbys);
  if (lazy)
    ctx.lazyfs = {
      async powerLoss() {
        ctx.store.close();
        await lazy.crash();
        ctx.store = lease();
      },
      failWrite: (n, errno) => lazy.failWrite(n, errno),
      clearFailWrite: () => lazy.clearFailWrite(),
    };
  let host: HostHandle | null = null;
  let status: RunResult['status'] = 'complete';
  let reason: string | undefined;
  let decided: RunEndEvent['decided'];
  let done = 0;
  let nextStart = firstStart;
  const runClock = nowMs();
  const loads = new LoadSampling(journal);
  try {
    const sampling = { journal, config: hostConfig(scenario, paths), hostLog: paths.hostLog, runDir: paths.dir, log };
    await runBootSamples(
      { ...sampling, timeouts, stop: opts.stop, progress: opts.progress },
      bootSamples,
      cycles[0] ?? 1,
    );
    opts.progress.start(cycles.length); // after the samples: elapsed and ETA are the cycles'
    for (const cycle of cycles) {
      if (opts.stop.requested) {
        status = 'interrupted';
        break;
      }
      if (scenario.budgetS > 0 && nowMs() - runClock > scenario.budgetS * 1000) {
        status = 'budget';
        break;
      }
      injectedRunnerError(done);
      let result: CycleResult | undefined;
      if (host === null) {
        if (scenario.session === 'fresh' && ctx.standby) {
          // a fresh session is handed to a ready standby (warmed before the request, off the measured path)
          ctx.standby.replenish(cycle);
          await ctx.standby.whenReady();
        }
        const started = await startOrGiveUp(ctx, nextStart, cycle, timeouts);
        host = started.host;
        result = started.result;
        if (host && !result) result = await nonces.judge(ctx, cycle, host, timeouts.hostMs);
        if (result) host = result.host;
      }
      ctx.standby?.replenish(cycle); // off the measured path: the session is up, no resume is being timed
      result ??= await runCycle(ctx, cycle, host!);
      if (scenario.session === 'fresh') await probes?.settle(result.host); // stopped below: its probe's word first
      const counted = effects?.account(journal, cycle, result.host);
      probes?.account(journal, cycle, result.host);
      await journal.durable(); // the cycle's events are on disk before the next cycle acts
      counted?.();
      if (effects) {
        const cloning = { scenario, journal, ledger: effects.ledger, config: hostCfg, runDir: paths.dir, log };
        await maybeClone({ ...cloning, hostLog: paths.hostLog, timeoutMs: timeouts.hostMs }, cycle, result.host);
      }
      lazy?.clearFailWrite(); // an injected write error the cycle did not reach is not carried into the next
      host = result.host;
      nextStart = result.restartWith;
      if (scenario.session === 'fresh' && host) {
        // destroy: the next cycle boots a new session (an adapter that does not answer destroy ends the run)
        const stopped = host;
        host = null;
        await stopped.stop();
        if (stopped.adapterFault !== null) throw orAdapterError(new Error('destroy failed'), stopped);
      }
      done++;
      opts.crash?.ended(cycle);
      loads.cycleEnded(cycle);
      opts.progress.cycle(result.event);
      const by = scenario.untilDecided === true && opts.decide ? await opts.decide(paths.dir) : null;
      if (by !== null) {
        decided = { cycle, by };
        break;
      }
    }
  } catch (err) {
    status = 'aborted';
    const errno = diskErrno(err);
    const failure = errno ? new DiskError(paths.dir, errno, { cause: err }) : err;
    reason = failure instanceof Error ? failure.message : String(failure);
    throw failure;
  } finally {
    if (host) await host.reap(timeouts.hostMs);
    await ctx.standby?.discard(timeouts.hostMs);
    solo?.crash.leave();
    await solo?.squeeze.close();
    try {
      effects?.account(journal, cycles[Math.max(0, done - 1)] ?? 0, null)(); // the last session's, without a claim
      probes?.finish(journal);
      await effects?.close();
      await loads.stop();
      const store = storeTally(ctx.store); // after the last host is gone: nothing commits any more
      const extra = {
        ...(reason !== undefined ? { reason } : {}),
        ...(store ? { store } : {}),
        ...(decided ? { decided } : {}),
      };
      journal.append({ type: 'run-end', status, cycles: done, ...extra });
      journal.close();
    } catch (err) {
      // A full disk may refuse run-end too: the journal then ends without one, which readers take as "did not end".
      log.error({ err }, 'could not journal run-end');
    }
    ctx.store.close();
    await lazy?.unmount();
    if (lazy) clearLazyfsOwner(paths.dir);
    opts.progress.finish();
    rmSync(paths.scratch, { recursive: true, force: true });
  }
  return { runDir: paths.dir, status, cycles: done };
}

/**
 * Start the session for `cycle`. A host that hangs, dies with nothing to say, hits a full disk or a held lock makes
 * the cycle indeterminate (result set, host null); a restore that dies of an adapter fault fails the cycle; a session
 * stuck while its host answers (no first full heartbeat, a first checkpoint past its bound) fails the cycle (the next
 * one boots); a host that fails on its own otherwise aborts the run (the error is thrown: an AdapterError for an
 * adapter fault at a boot).
 */
async function startOrGiveUp(
  ctx: CycleContext,
  mode: 'boot' | 'restore',
  cycle: number,
  timeouts: HostTimeouts,
): Promise<{ host: HostHandle | null; result?: CycleResult }> {
  const spawned: { host: HostHandle | null } = { host: null };
  if (mode === 'restore') {
    // nothing to restore yet (the first boot was indeterminate): boot
    ctx.store.refresh();
    if (ctx.store.latest() === null) mode = 'boot';
  }
  try {
    const spawn: SpawnHost = (m, c) =>
      (m === 'boot' && ctx.scenario.session === 'fresh' ? ctx.standby?.take(c, 'boot') : null) ?? ctx.spawnHost(m, c);
    const up = await startSession(spawn, ctx.journal, mode, cycle, timeouts.resumeMs, (h) => {
      spawned.host = h;
    });
    return { host: up };
  } catch (err) {
    const cause = causeOf(err, spawned.host, ctx.runDir);
    const fault = mode === 'restore' && spawned.host ? adapterFaultViolation(spawned.host) : null;
    const stuck = err instanceof SessionHungError;
    if (!cause && !fault && !stuck) {
      await spawned.host?.reap(timeouts.hostMs);
      throw orAdapterError(err, spawned.host); // a boot that failed: no session to judge, the run ends
    }
    const plan = planKill(ctx.scenario, cycle);
    ctx.journal.append({ type: 'cycle-start', cycle, phase: plan.phase });
    if (fault)
      return { host: null, result: await adapterFaulted(ctx, cycle, plan, spawned.host!, fault, -1, timeouts.hostMs) };
    if (cause)
      return { host: null, result: await indeterminate(ctx, cycle, plan, spawned.host, cause, -1, timeouts.hostMs) };
    await spawned.host?.reap(timeouts.hostMs);
    const violations = [sessionFailure(err)];
    const judged = judgedCycleEvent({
      cycle,
      phase: plan.phase,
      observedPhase: 'work', // no kill landed (in a checkpoint write or anywhere): no torn-write trial
      downtimeMs: null,
      killStep: Math.max(0, spawned.host?.maxStep ?? 0),
      restoredSeq: null,
      restoredStep: null,
      restoreKills: 0,
      violations,
    });
    const event = ctx.journal.append(judged) as CycleEvent;
    ctx.log.warn({ cycle, violations: violations.map((v) => v.message) }, 'cycle failed: the session did not start');
    return { host: null, result: { event, host: null, restartWith: 'boot' } };
  }
}
