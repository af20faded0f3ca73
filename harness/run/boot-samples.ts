// Boot samples for gate 1 (scenario bootSamples): before its cycles the runner boots throwaway fresh sessions, each in
// its own store and session folder under scratch/, waits for the first full heartbeat, checks it against the workload
// model, journals a `boot` event marked with the sample's id, and destroys the session. They are not cycles: no kill,
// no nemesis draw (every cycle's kill plan is unchanged), no downtime, no checkpoint in the run's store.
import { rmSync } from 'node:fs';
import path from 'node:path';
import { checkFreshBoot } from '../check/fresh-boot.js';
import { WorkloadModel } from '../check/workload.js';
import type { Logger } from '../core/logger.js';
import type { JournalWriter } from '../journal/writer.js';
import { HostHandle, isEv, isFullHeartbeat } from '../session/host-handle.js';
import type { HostConfig } from '../session/protocol.js';
import { causeOf, sessionFailure } from '../session/infra-cause.js';
import type { HostTimeouts } from '../scenario/timeouts.js';
import { SessionHungError } from '../core/errors.js';
import { cycleIds, type Shard } from '../scenario/shard.js';
import { orAdapterError } from './adapter-fault.js';
import type { Progress } from './progress.js';

/** The boot sample ids a run (or one shard of it) owns: split over shards as cycle ids are, so a merge has them all. */
export function bootSampleIds(bootSamples: number, shard?: Shard): number[] {
  return cycleIds(bootSamples, shard);
}

/** What the sample phase needs of the runner. */
export interface BootSampleContext {
  journal: JournalWriter;
  /** What every host of the run is told; a sample's host gets its own store and session folders instead. */
  config: Omit<HostConfig, 'mode'>;
  hostLog: string;
  runDir: string;
  log: Logger;
  timeouts: HostTimeouts;
  /** Stop between samples when set (Ctrl-C, SIGTERM). */
  stop: { requested: boolean };
  /** Told when the samples begin and as each ends (run/progress.ts: the same line as the cycles'). */
  progress: Pick<Progress, 'startSamples' | 'sample'>;
}

/**
 * Boot one throwaway session per id, in order, journaled as `boot` events with `sample` and `cycle` = `beforeCycle`
 * (the first cycle run after them); returns how many were journaled. A sample whose host hangs or dies for the
 * machine's reasons, or whose session hangs while its host answers, is logged and not counted; a first heartbeat that
 * fails the check aborts the run (thrown).
 */
export async function runBootSamples(
  ctx: BootSampleContext,
  ids: readonly number[],
  beforeCycle: number,
): Promise<number> {
  const model = new WorkloadModel();
  let journaled = 0;
  if (ids.length > 0) ctx.progress.startSamples(ids.length);
  for (const id of ids) {
    if (ctx.stop.requested) break;
    const bootMs = await bootSample(ctx, id, beforeCycle, model);
    if (bootMs !== null) journaled++;
    ctx.progress.sample(bootMs);
  }
  ctx.log.info({ bootSamples: journaled, asked: ids.length }, 'boot samples done');
  return journaled;
}

/** Boot, check and destroy one sample; its boot time (ms), or null when it was not counted. */
async function bootSample(
  ctx: BootSampleContext,
  id: number,
  cycle: number,
  model: WorkloadModel,
): Promise<number | null> {
  const dir = path.join(ctx.config.scratchDir, `boot-sample-${id}`);
  const host = new HostHandle(
    { ...ctx.config, mode: 'boot', storeDir: path.join(dir, 'store'), sessionDir: path.join(dir, 'session') },
    ctx.hostLog,
  );
  ctx.journal.append({ type: 'host-start', cycle, pid: host.pid, mode: 'boot' }); // so --resume can kill it
  try {
    const ms = ctx.timeouts.resumeMs;
    const waits = [
      host.waitFor(isEv('booted'), ms, 'booted'),
      host.waitFor(isFullHeartbeat, ms, 'full heartbeat'),
    ] as const;
    for (const w of waits) w.catch(() => {}); // the first to reject is reported; the other is not unhandled
    const [{ msg: up }, { msg: hb }] = await Promise.all(waits);
    const violations = checkFreshBoot(hb, model);
    if (violations.length > 0) throw new Error(`boot sample ${id}: ${violations.map((v) => v.message).join('; ')}`);
    ctx.journal.append({ type: 'boot', cycle, bootMs: up.bootMs, nonce: hb.nonce, sample: id });
    return up.bootMs;
  } catch (err) {
    const cause = causeOf(err, host, ctx.runDir);
    // a session stuck while its host answered is not counted either (a sample has no outcome to fail): logged
    if (!cause && !(err instanceof SessionHungError)) throw orAdapterError(err, host);
    ctx.log.warn({ sample: id, cause: cause ?? sessionFailure(err) }, 'boot sample not counted');
    return null;
  } finally {
    await host.stop(ctx.timeouts.hostMs); // destroy: SIGTERM (the host destroys its target), then its group
    rmSync(dir, { recursive: true, force: true });
  }
}
