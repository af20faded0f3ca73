// A run's cycles driven in the test's own process on real session hosts (loaded from dist/: hosts run compiled code),
// with a handle on every host the run spawns, so a test can SIGSTOP the session's process (the agent, QEMU) or the
// whole host group at a message it observed (restore-begin, ckpt-begin) and see how the cycle is judged.
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { CycleEvent, JournalEvent } from '../../harness/journal/events.js';
import { parseScenario } from '../../harness/scenario/scenario.js';
import type { HostMessage } from '../../harness/session/protocol.js';
import { testEnvironment } from './journal-events.js';
import { repoRoot } from './paths.js';

const dist = path.join(repoRoot, 'dist', 'harness');
if (!existsSync(path.join(dist, 'session', 'checkpoint-watch.js')))
  throw new Error(`${dist}/session/checkpoint-watch.js is missing: build first (npm run build or npm test)`);
const load = <T>(rel: string): Promise<T> => import(pathToFileURL(path.join(dist, rel)).href) as Promise<T>;
const { runCycle } = await load<typeof import('../../harness/run/cycle.js')>('run/cycle.js');
const { hostConfig, journaledHosts, startSession } =
  await load<typeof import('../../harness/run/host-journal.js')>('run/host-journal.js');
const { hostTimeouts } = await load<typeof import('../../harness/scenario/timeouts.js')>('scenario/timeouts.js');
const { WarmStandby } = await load<typeof import('../../harness/run/standby.js')>('run/standby.js');
const { resetScratch, runPaths } = await load<typeof import('../../harness/run/run-folder.js')>('run/run-folder.js');
const { Store } = await load<typeof import('../../harness/store/store.js')>('store/store.js');
const { JournalWriter } = await load<typeof import('../../harness/journal/writer.js')>('journal/writer.js');
const { createLogger } = await load<typeof import('../../harness/core/logger.js')>('core/logger.js');
const { nowMs } = await load<typeof import('../../harness/core/clock.js')>('core/clock.js');
const { WorkloadModel } = await load<typeof import('../../harness/check/workload.js')>('check/workload.js');
const { readProcStat } = await load<typeof import('../../harness/core/proc.js')>('core/proc.js');
/** The freeze fault's SIGSTOP/SIGCONT of a host's whole group, and a host's stuck checkpoint, as the runner has them. */
export const { freezeHost } = await load<typeof import('../../harness/nemesis/freeze.js')>('nemesis/freeze.js');
export const { stuckCheckpoint } =
  await load<typeof import('../../harness/session/checkpoint-watch.js')>('session/checkpoint-watch.js');
export const { isEv } = await load<typeof import('../../harness/session/host-handle.js')>('session/host-handle.js');
export { WorkloadModel };

type Host = import('../../harness/session/host-handle.js').HostHandle;

/** One run's session, booted, with every host the run spawned (in order) and its journal (run-end once closed). */
export interface Rig {
  host: Host;
  hosts: Host[];
  /** Run cycle `cycle` on the current session (its result's host becomes the current one). */
  cycle(cycle: number): Promise<CycleEvent>;
  events(): JournalEvent[];
  close(): Promise<void>;
}

/**
 * Boot a session of scenario `yaml` (its cycles' bounds; the boot itself gets `bootMs`) in `dir`; with `standby: true`
 * in the scenario, a standby host is started and ready before this resolves.
 */
export async function bootRig(dir: string, yaml: string, bootMs: number): Promise<Rig> {
  const scenario = parseScenario(yaml, path.join(dir, 'scenario.yaml'));
  const paths = runPaths(dir);
  mkdirSync(dir, { recursive: true });
  resetScratch(paths);
  const t0 = nowMs();
  const journal = new JournalWriter(paths.journal, () => nowMs() - t0);
  const runId = path.basename(dir);
  const startedAt = new Date().toISOString();
  journal.append({ type: 'run-start', runId, startedAt, scenario, environment: testEnvironment });
  let cycles = 0;
  const timeouts = hostTimeouts(scenario);
  const hosts: Host[] = [];
  const spawnJournaled = journaledHosts(journal, hostConfig(scenario, paths), paths.hostLog, timeouts);
  const spawnHost = (mode: 'boot' | 'restore' | 'standby' | 'pool', c: number): Host => {
    const h = spawnJournaled(mode, c);
    hosts.push(h);
    return h;
  };
  const log = createLogger(paths.runLog, 'silent');
  const store = Store.open(paths.store, { purpose: 'test lease' });
  const ctx = { scenario, store, journal, log, model: new WorkloadModel(), runDir: dir, spawnHost };
  const standby = scenario.standby ? new WarmStandby((c) => spawnHost('standby', c), timeouts.hostMs, log) : undefined;
  let host: Host | null = await startSession(spawnHost, journal, 'boot', 1, bootMs);
  if (standby) {
    standby.replenish(1);
    await standby.whenReady();
  }
  const rig: Rig = {
    host,
    hosts,
    async cycle(c) {
      if (host === null) throw new Error('the session ended: boot a new rig');
      const r = await runCycle({ ...ctx, ...(standby ? { standby } : {}) }, c, host);
      await journal.durable();
      cycles++;
      host = r.host;
      return r.event;
    },
    events: () =>
      readFileSync(paths.journal, 'utf8')
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => JSON.parse(l) as JournalEvent),
    async close() {
      await Promise.all(hosts.map((h) => h.reap(30_000)));
      journal.append({ type: 'run-end', status: 'complete', cycles });
      journal.close();
      store.close();
    },
  };
  return rig;
}

/** Run `fn` on a rig booted in `dir` (see bootRig), closing the rig after, whatever `fn` did. */
export async function withRig<T>(dir: string, yaml: string, bootMs: number, fn: (rig: Rig) => Promise<T>): Promise<T> {
  const rig = await bootRig(dir, yaml, bootMs);
  try {
    return await fn(rig);
  } finally {
    await rig.close();
  }
}

/** PIDs in process group `pgid` (its leader, the host, left out) whose command line matches `cmd`. */
export function groupProcesses(pgid: number, cmd: RegExp): number[] {
  return readdirSync('/proc')
    .filter((n) => /^\d+$/.test(n) && Number(n) !== pgid && readProcStat(n)?.pgrp === pgid)
    .filter((n) => {
      try {
        return cmd.test(readFileSync(`/proc/${n}/cmdline`, 'utf8').replaceAll('\0', ' '));
      } catch {
        return false; // gone
      }
    })
    .map(Number);
}

/** What `stopAt` stopped, once it did. */
export interface Stopped {
  /** The PIDs stopped (negative: a whole process group). */
  pids: number[];
  /** The message the stop followed. */
  msg: HostMessage;
  /** SIGCONT them. */
  cont(): void;
}

/**
 * At `host`'s first `ev` message from now on, SIGSTOP its processes matching `cmd` (the session under test), or with
 * `cmd` 'group' the host's whole process group; resolves with what was stopped (rejects when none matched).
 */
export function stopAt(host: Host, ev: HostMessage['ev'], cmd: RegExp | 'group'): Promise<Stopped> {
  return new Promise((resolve, reject) => {
    const onMsg = (msg: HostMessage): void => {
      if (msg.ev !== ev) return;
      host.off('msg', onMsg);
      const pids = cmd === 'group' ? [-host.pid] : groupProcesses(host.pid, cmd);
      if (pids.length === 0) {
        reject(new Error(`no process of host ${host.pid} matches ${String(cmd)} at its ${ev}`));
        return;
      }
      for (const p of pids) process.kill(p, 'SIGSTOP');
      resolve({ pids, msg, cont: () => pids.forEach((p) => signal(p, 'SIGCONT')) });
    };
    host.on('msg', onMsg);
  });
}

/**
 * Stop `host`'s whole group inside a checkpoint: at a ckpt-begin, SIGSTOP the group; when that checkpoint's commit
 * arrives after all (the host wrote it before the stop: the test read ckpt-begin late on a loaded machine), SIGCONT and
 * try again at the next ckpt-begin. Resolves with the stop that held a checkpoint open (the one with no commit).
 */
export function stopGroupInCheckpoint(host: Host): Promise<Stopped> {
  return new Promise((resolve, reject) => {
    let stopped: { seq: number; at: Stopped } | null = null;
    const onMsg = (msg: HostMessage): void => {
      if (msg.ev === 'ckpt-commit' && stopped !== null && msg.seq === stopped.seq) {
        stopped.at.cont();
        stopped = null;
      } else if (msg.ev === 'ckpt-begin' && stopped === null) {
        process.kill(-host.pid, 'SIGSTOP');
        stopped = { seq: msg.seq, at: { pids: [-host.pid], msg, cont: () => signal(-host.pid, 'SIGCONT') } };
      }
    };
    host.on('msg', onMsg);
    host.once('exit', () => {
      host.off('msg', onMsg);
      if (stopped !== null) resolve(stopped.at);
      else reject(new Error(`host ${host.pid} exited with no checkpoint held open by a stop`));
    });
  });
}

function signal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch {
    // gone (killed by the cycle)
  }
}
