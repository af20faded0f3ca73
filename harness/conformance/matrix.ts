// `soak target check --matrix`: N kill/resume trials, each a fresh session with the guest-state probe: boot, the
// probe's setup, a checkpoint begun after it and committed, a real SIGKILL of the host group, a restore, and the
// probe's examination of every class (check/survival.ts); then a clone restored from the same checkpoint beside it,
// examined too, for clone-entropy. What became of each trial is kept, measured or not.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { compareCloneEntropy, withCloneEntropy } from '../check/clone-entropy.js';
import { type Observation, type ProbeReport, unprobed, withLaterClocks } from '../check/survival.js';
import type { HostHandle } from '../session/host-handle.js';
import type { HostMessage } from '../session/protocol.js';
import { PROBE_PEER_ENV, startEchoPeer } from './echo-peer.js';
import { type ConformanceTarget, ConformanceSession } from './session.js';

/** One trial: the examination after its resume, or why there is none (`problem`). */
export interface MatrixTrial {
  trial: number;
  report: ProbeReport | null;
  problem?: string;
  /** The problem is an adapter fault: the adapter broke the target protocol. */
  adapterFault?: true;
}

type ProbeMsg = Extract<HostMessage, { ev: 'probe' }>;
const isProbe =
  (...events: string[]) =>
  (m: HostMessage): m is ProbeMsg =>
    m.ev === 'probe' && events.includes(m.line.event);

/** The probe's word after a wait: an examination, a report that the target runs none, or a problem. */
function reportOf(msg: ProbeMsg): ProbeReport | string {
  const l = msg.line;
  if (l.event === 'examined') return { mode: l.mode, observations: l.observations };
  if (l.event === 'unprobed') return unprobed(l.reason);
  return l.event === 'error' ? `probe: ${l.message}` : `probe: unexpected ${l.event}`;
}

async function trial(s: ConformanceSession, t: ConformanceTarget): Promise<ProbeReport | string> {
  const h: HostHandle = s.start('boot');
  const ready = await h.waitFor(isProbe('ready', 'unprobed', 'error'), t.timeoutMs, 'probe ready');
  if (ready.msg.line.event === 'error') return reportOf(ready.msg);
  await h.waitFor((m) => m.ev === 'ckpt-begin', t.timeoutMs, 'a checkpoint begun after the probe setup');
  await h.waitFor((m) => m.ev === 'ckpt-commit', t.timeoutMs, 'its commit');
  await s.kill(h);
  s.keepProbeRecord();
  // mode clone: it never checkpoints, so the clone below restores the same checkpoint
  const r = s.start('clone');
  const examined = await r.waitFor(isProbe('examined', 'unprobed', 'error'), t.timeoutMs, 'probe examination');
  const report = reportOf(examined.msg);
  if (typeof report === 'string' || report.mode === 'unprobed') return report;
  const read = await laterClocks(r, t, report);
  if (typeof read === 'string') return read;
  return withCloneEntropy(read, await cloneEntropy(s, t, report));
}

/** A clone restored from the same checkpoint while the session runs, examined, compared with it (clone-entropy). */
async function cloneEntropy(s: ConformanceSession, t: ConformanceTarget, session: ProbeReport): Promise<Observation> {
  const c = s.startClone();
  try {
    const examined = await c.waitFor(isProbe('examined', 'unprobed', 'error'), t.timeoutMs, "the clone's examination");
    const clone = reportOf(examined.msg);
    if (typeof clone !== 'string') return compareCloneEntropy(session, clone);
    return { class: 'clone-entropy', status: 'not-applicable', detail: `no clone examined: ${clone}` };
  } catch (err) {
    const why = (err as Error).message.split('\n')[0]!;
    return { class: 'clone-entropy', status: 'not-applicable', detail: `no clone examined: ${why}` };
  } finally {
    await s.kill(c);
  }
}

/** The schedule of later wall-clock readings the target was given (targetOptions.probeClockAfter), in seconds. */
export function clockSchedule(t: ConformanceTarget): number[] {
  const s = t.targetOptions.probeClockAfter;
  return Array.isArray(s) ? s.filter((x): x is number => typeof x === 'number') : [];
}

/** Wait for the target's later clock readings (each `clock` line the probe prints after the resume), then add them. */
async function laterClocks(r: HostHandle, t: ConformanceTarget, report: ProbeReport): Promise<ProbeReport | string> {
  const schedule = clockSchedule(t);
  const got: Observation[] = [];
  if (schedule.length > 0) {
    const last = Math.max(...schedule);
    const all = (m: HostMessage): boolean => {
      if (m.ev !== 'probe') return false;
      const l = m.line;
      if (l.event === 'error') return true;
      if (l.event === 'clock' && !got.some((o) => o.class === l.observations[0]?.class)) got.push(...l.observations);
      return got.length === schedule.length;
    };
    const { msg } = await r.waitFor(
      all,
      t.timeoutMs + last * 1000,
      `its wall-clock readings ${schedule.join(', ')} s after the resume`,
    );
    if (msg.ev === 'probe' && msg.line.event === 'error') return `probe: ${msg.line.message}`;
  }
  const why =
    t.target === 'exec'
      ? 'not read: the adapter protocol asks for one examination per resume (docs/target-protocol.md)'
      : 'not read: not in --clock-after';
  return withLaterClocks({ ...report, observations: [...report.observations, ...got] }, why);
}

/** Run `trials` trials one after another, each in its own session folder under `keepDir` (default: a temp folder). */
export async function runMatrix(
  t: ConformanceTarget,
  trials: number,
  onTrial: (done: MatrixTrial) => void = () => {},
  keepDir?: string,
): Promise<MatrixTrial[]> {
  const dir = keepDir ?? mkdtempSync(path.join(os.tmpdir(), 'soak-target-matrix-'));
  const out: MatrixTrial[] = [];
  // the peer outside the sandbox (tcp-peer): named to the probe through the environment the session hosts inherit
  const peer = await startEchoPeer();
  const before = process.env[PROBE_PEER_ENV];
  process.env[PROBE_PEER_ENV] = peer.address;
  try {
    for (let i = 1; i <= trials; i++) {
      const s = new ConformanceSession(path.join(dir, `trial-${i}`), t);
      let r: ProbeReport | string;
      let fault: string | null = null;
      try {
        r = await trial(s, t);
      } catch (err) {
        fault = s.adapterFault();
        r = fault ?? (err as Error).message.split('\n')[0]!;
      } finally {
        await s.close();
      }
      const done: MatrixTrial =
        typeof r !== 'string'
          ? { trial: i, report: r }
          : { trial: i, report: null, problem: r, ...(fault !== null ? { adapterFault: true as const } : {}) };
      out.push(done);
      onTrial(done);
    }
  } finally {
    if (before === undefined) Reflect.deleteProperty(process.env, PROBE_PEER_ENV);
    else process.env[PROBE_PEER_ENV] = before;
    await peer.close();
    if (keepDir === undefined) rmSync(dir, { recursive: true, force: true });
  }
  return out;
}
