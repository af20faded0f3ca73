// Clones (issue 34, scenario effects.clones): after a seeded resume, a second session host restores the session's
// newest checkpoint into a folder of its own while the session runs on, so two sessions carry on from one checkpoint and
// both emit. Once both are past the clone's effectSteps-th effect step the clone is stopped (its host and processes,
// by proven identity) and the applications it caused are journaled as an effects event with clone: true.
import { rmSync } from 'node:fs';
import path from 'node:path';
import type { Logger } from '../core/logger.js';
import { accountClone } from '../effects/clone-accounting.js';
import { effectStepsThrough, isCloneCycle, isEffectStep } from '../effects/plan.js';
import type { JournalWriter } from '../journal/writer.js';
import type { Scenario } from '../scenario/scenario.js';
import { type HostHandle, isFullHeartbeat } from '../session/host-handle.js';
import type { HostConfig } from '../session/protocol.js';
import { journaledHosts } from './host-journal.js';
import type { EffectLedger } from '../effects/ledger.js';

/** What a clone needs of the run. */
export interface CloneContext {
  scenario: Scenario;
  journal: JournalWriter;
  ledger: EffectLedger;
  /** The run's host config (with the ledger's address in its target options). */
  config: Omit<HostConfig, 'mode'>;
  runDir: string;
  hostLog: string;
  timeoutMs: number;
  log: Logger;
}

/** The first step at which `n` effect steps after `from` are done (the step after the n-th one). */
function pastEffectSteps(seed: number, everySteps: number, from: number, n: number): number {
  let step = from;
  for (let seen = 0; seen < n;) if (isEffectStep(seed, ++step, everySteps)) seen++;
  return step + 1;
}

/** Clone the resumed session of `host` when the plan says so for `cycle`; returns whether a clone ran. */
export async function maybeClone(ctx: CloneContext, cycle: number, host: HostHandle | null): Promise<boolean> {
  const plan = ctx.scenario.effects;
  if (plan?.clones === undefined || host === null || host.exited !== null || host.effectsClaim === null) return false;
  if (!isCloneCycle(ctx.scenario.seed, cycle, plan.clones.every)) return false;
  const dir = path.join(ctx.runDir, 'clones', `c${cycle}`);
  // its own session folder and scratch; the session's store, read only: a clone host never checkpoints
  const cfg = { ...ctx.config, sessionDir: path.join(dir, 'session'), scratchDir: path.join(dir, 'scratch') };
  // journaled like every host (host-start, kill lists), so a runner that dies meanwhile leaves it to --resume's sweep
  const clone = journaledHosts(ctx.journal, cfg, ctx.hostLog, { hostMs: ctx.timeoutMs })('clone', cycle);
  try {
    return await cloneAndCount(ctx, cycle, host, clone, { ...plan, clones: plan.clones });
  } catch (err) {
    // the session or the clone did not get there (a host died or hung): nothing is counted, the soak goes on
    ctx.log.warn({ cycle, err: (err as Error).message }, 'clone: not counted');
    return false;
  } finally {
    if (clone.exited === null) await clone.reap(ctx.timeoutMs);
    rmSync(dir, { recursive: true, force: true });
  }
}

type Plan = NonNullable<Scenario['effects']> & { clones: NonNullable<NonNullable<Scenario['effects']>['clones']> };

async function cloneAndCount(
  ctx: CloneContext,
  cycle: number,
  host: HostHandle,
  clone: HostHandle,
  plan: Plan,
): Promise<boolean> {
  const { msg } = await clone.waitFor(isFullHeartbeat, ctx.timeoutMs, 'the clone');
  const incarnation = clone.effectsClaim?.incarnation;
  if (incarnation === undefined || msg.nonce !== host.nonce) {
    ctx.log.warn({ cycle }, 'clone: restored no claim of the session; not counted');
    return false;
  }
  ctx.ledger.markClone(incarnation); // before the session's next accounting: its rows are the clone's own
  const fork = msg.step;
  const until = pastEffectSteps(ctx.scenario.seed, plan.everySteps, fork, plan.clones.effectSteps);
  const past = (h: HostHandle): Promise<unknown> =>
    h.waitFor((m) => m.ev === 'hb' && m.step >= until, ctx.timeoutMs, `step ${until}`);
  await Promise.all([past(clone), past(host)]);
  await clone.stop(ctx.timeoutMs);
  // every logical effect the clone sent, the session has sent too: it is past the clone's last step
  const last = clone.maxStep;
  if (host.maxStep <= last)
    await host.waitFor((m) => m.ev === 'hb' && m.step > last, ctx.timeoutMs, `step ${last + 1}`);
  const { fields, seqs } = accountClone(ctx.ledger.rows(msg.nonce), incarnation, msg.nonce, fork);
  ctx.journal.append({ type: 'effects', cycle, ...fields });
  await ctx.journal.durable();
  ctx.ledger.markAccounted(seqs);
  const steps = effectStepsThrough(ctx.scenario.seed, until, plan.everySteps).filter((s) => s > fork).length;
  ctx.log.info({ cycle, fork, until, steps, requests: seqs.length }, 'clone counted');
  return true;
}
