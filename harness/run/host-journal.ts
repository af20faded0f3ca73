// Connect session hosts to the journal: spawn a host and journal host-start, turn the messages it sends into journal
// events (checkpoint, target-info, kill-list), and start a session (boot or restore) journaling when it is up.
import { HostHandle, isEv, isFullHeartbeat } from '../session/host-handle.js';
import type { HostConfig, HostMessage } from '../session/protocol.js';
import type { JournalWriter } from '../journal/writer.js';
import type { Scenario } from '../scenario/scenario.js';
import type { RunPaths } from './run-folder.js';
import { stuckCheckpoint, watchCheckpoints } from '../session/checkpoint-watch.js';
import { HostTimeoutError, SessionHungError } from '../core/errors.js';

/** What every host of this run is told (all but its mode): the scenario's target and cadence, the run's folders. */
export function hostConfig(scenario: Scenario, paths: RunPaths): Omit<HostConfig, 'mode'> {
  return {
    target: scenario.target,
    targetOptions: scenario.targetOptions,
    storeDir: paths.store,
    sessionDir: paths.session,
    scratchDir: paths.scratch,
    stepMs: scenario.stepMs,
    checkpointEveryMs: scenario.checkpoint.everyMs,
    skewMs: scenario.skewMs,
    injectRestoreDelayMs: scenario.injectRestoreDelayMs,
  };
}

/** Start a session host for `cycle`; what cycle.ts and the runner call (and run/standby.ts, with mode 'standby'). */
export type SpawnHost = (mode: 'boot' | 'restore' | 'standby' | 'pool', cycle: number) => HostHandle;

/** The cycle each host's events are journaled under, when it changed since the spawn (a standby handed a restore). */
const handedTo = new WeakMap<HostHandle, number>();

/** Journal `h`'s events from now on under `cycle` (a standby started in one cycle restores in a later one). */
export function reassignHostCycle(h: HostHandle, cycle: number): void {
  handedTo.set(h, cycle);
}

/**
 * A SpawnHost that journals host-start, each committed checkpoint, and the first live target facts of the run. With
 * `bounds`: how long a host may be silent (hostMs: liveness.ts) and, when given, the bound on each of its checkpoints
 * (session/checkpoint-watch.ts).
 */
export function journaledHosts(
  journal: JournalWriter,
  config: Omit<HostConfig, 'mode'>,
  hostLog: string,
  bounds?: { hostMs: number; checkpointMs?: number },
): (mode: 'boot' | 'restore' | 'standby' | 'pool' | 'clone', cycle: number) => HostHandle {
  let targetInfoJournaled = false;
  return (mode, spawnedIn) => {
    const h = new HostHandle({ ...config, mode }, hostLog, bounds?.hostMs);
    if (bounds?.checkpointMs !== undefined) watchCheckpoints(h, bounds.checkpointMs);
    journal.append({ type: 'host-start', cycle: spawnedIn, pid: h.pid, mode });
    h.on('msg', (msg) => {
      const cycle = handedTo.get(h) ?? spawnedIn;
      if (msg.ev === 'ckpt-commit') {
        const { ev: _ev, ...rest } = msg; // drop the protocol tag, keep every field
        journal.append({ type: 'checkpoint', cycle, ...rest });
      } else if (msg.ev === 'kill-list') {
        // Before the runner can die with them unkilled: a resumed run kills what is still alive (run/orphans.ts).
        const hostStart = h.startTime !== '' ? { hostStartTime: h.startTime } : {};
        journal.append({ type: 'kill-list', cycle, host: h.pid, ...hostStart, procs: msg.procs });
      } else if (msg.ev === 'target' && msg.live && !targetInfoJournaled) {
        // What only a running target knows (accelerator chosen, image hash, QEMU version) completes the environment.
        targetInfoJournaled = true;
        journal.append({ type: 'target-info', cycle, info: msg.info });
      }
    });
    return h;
  };
}

/** Start the session and wait until it is up (journaling boot or restore) and has a committed checkpoint. */
export async function startSession(
  spawnHost: SpawnHost,
  journal: JournalWriter,
  mode: 'boot' | 'restore',
  cycle: number,
  timeoutMs: number,
  /** Told the host as soon as it is spawned, so a caller can kill it (and read why it failed) if starting fails. */
  spawned: (h: HostHandle) => void = () => {},
): Promise<HostHandle> {
  const h = spawnHost(mode, cycle);
  spawned(h);
  const first = (ev: HostMessage['ev']) => h.waitFor(isEv(ev), timeoutMs, ev);
  const waits = [
    first(mode === 'boot' ? 'booted' : 'restore-end'),
    h.waitFor(isFullHeartbeat, timeoutMs, 'full heartbeat'),
    first('ckpt-commit'),
  ] as const;
  for (const w of waits) w.catch(() => {}); // the first to reject is reported; the others are not unhandled
  // a first checkpoint past its bound fails the start as soon as it is known (stuck session: SessionHungError)
  const stuck = stuckCheckpoint(h).then((s): never => {
    throw s.kind === 'session'
      ? new SessionHungError(s.violation.message, 'checkpoint-stuck')
      : new HostTimeoutError(s.cause.message);
  });
  stuck.catch(() => {}); // a checkpoint stuck after the start is the cycle's to judge
  const [{ msg: up }, { msg: hb }] = await Promise.race([Promise.all(waits), stuck]);
  if (up.ev === 'booted') journal.append({ type: 'boot', cycle, bootMs: up.bootMs, nonce: hb.nonce });
  else if (up.ev === 'restore-end')
    journal.append({
      type: 'restore',
      cycle,
      seq: up.seq,
      step: up.step,
      restoreMs: up.restoreMs,
      ...(up.source === undefined ? {} : { source: up.source }),
    });
  return h;
}
