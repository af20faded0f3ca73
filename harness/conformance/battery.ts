// The conformance battery (`soak target check`): a fixed sequence of checks any target must pass, each with the
// evidence it saw. Real hosts, real SIGKILLs; the resume checker is the same one the soak uses.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { checkResume } from '../check/checker.js';
import type { Heartbeat } from '../check/heartbeat.js';
import { WorkloadModel } from '../check/workload.js';
import { sleep } from '../core/clock.js';
import { listenForResume } from '../run/resume-check.js';
import { groupAlive, pidAlive } from '../core/proc.js';
import { type HostHandle, isEv } from '../session/host-handle.js';
import { type ConformanceTarget, ConformanceSession } from './session.js';

/** One check's result. */
export interface CheckResult {
  id: string;
  title: string;
  /** adapter-fault: the check could not be judged, the adapter broke the target protocol (evidence: the fault). */
  verdict: 'pass' | 'fail' | 'adapter-fault';
  evidence: string;
}

/**
 * The checks, in the order they run (a check that cannot run because an earlier one broke is "not run", with the
 * verdict of the one that broke: fail, or adapter-fault).
 */
export const CHECKS = [
  ['boots-and-heartbeats', 'boots; a full heartbeat, then light ones that advance'],
  ['checkpoint-restore', 'checkpoint -> SIGKILL -> restore returns the same session, step and digests'],
  ['fresh-boot-nonce', 'a fresh boot has a new nonce (it can never pass for a resume)'],
  ['kill-mid-checkpoint', 'a kill during a checkpoint leaves the previous checkpoint restorable'],
  ['kill-mid-restore', 'a kill during a restore leaves the checkpoint restorable'],
  ['destroy-no-process', 'destroy leaves no process behind (host group and kill list)'],
] as const;

/**
 * Classes of guest state the battery does not check, so a PASS says nothing about them: printed under the table and in
 * --json (`notChecked`). The checks above compare the workload's own workspace, memory and tool state, its nonce and
 * processes; a restored sandbox can lose or repeat everything else and still pass.
 */
export const NOT_CHECKED = [
  "files outside the workload's workspace: /tmp and /dev/shm contents, other writable paths",
  'wall clock and monotonic clock continuity across a restore (a clock set back or jumping)',
  'randomness of clones: two sessions restored from one checkpoint reading the same /dev/urandom or CRNG bytes',
  'processes other than the agent and its tool process, and their memory',
  'open network connections, listening sockets, pipes and other file descriptors',
  'pending signals, timers and file locks',
  'power loss and disk faults (every kill here is a SIGKILL)',
  'repeated cycles and timing (each check runs once; downtime and pause are measured by soak run)',
  "external effects a resume repeats or loses: the effects line checks only that a sandbox that declares effects reaches the effect ledger (soak run with `effects` counts repeats and losses, docs/effects.md; an exec adapter whose describe declares no `effects: { reach: 'loopback' }` cannot reach the effect ledger)",
] as const;

type Resumed = { seq: number; step: number; hb: Heartbeat };

/** Run the battery; `dir` (default: a temp folder, removed after) holds the stores and logs. */
export async function runBattery(t: ConformanceTarget, keepDir?: string): Promise<CheckResult[]> {
  const dir = keepDir ?? mkdtempSync(path.join(os.tmpdir(), 'soak-target-check-'));
  const results: CheckResult[] = [];
  const s1 = new ConformanceSession(path.join(dir, 'session-1'), t);
  const s2 = new ConformanceSession(path.join(dir, 'session-2'), t);
  const model = new WorkloadModel();
  const pass = (i: number, evidence: string): void => void results.push(row(i, 'pass', evidence));
  const failed = (i: number, evidence: string): void => void results.push(row(i, 'fail', evidence));
  let nonce = '';

  /** Restore in a new host and check the first full heartbeat as the soak's checker does. */
  const resume = async (killStep: number, latest: number | null): Promise<Resumed & { problems: string[] }> => {
    const host = s1.start('restore');
    // Both waits from the start, as the soak's interruption listens: an adapter may send its full heartbeat before it
    // answers the restore. The battery needs only this part of an interruption: no journal, and its restore kill is a
    // check of its own (kill-mid-restore), not a retry.
    const pending = listenForResume(host, t.timeoutMs);
    const [{ msg: end }, { msg: full }] = await Promise.all([pending.restored, pending.firstFull]);
    const { ev: _ev, ...hb } = full;
    const v = checkResume({ heartbeat: hb, restored: end, killStep, nonce, latestCompleteSeq: latest }, model);
    current = host;
    return { seq: end.seq, step: end.step, hb, problems: v.map((x) => `${x.code}: ${x.message}`) };
  };
  let current: HostHandle | null = null;
  const steps: (() => Promise<void>)[] = [
    async () => {
      const h = s1.start('boot');
      current = h;
      const full = await s1.firstFull(h);
      nonce = full.nonce;
      const { msg } = await h.waitFor((m) => m.ev === 'hb' && !m.full && m.step > full.step, t.timeoutMs, 'step');
      const step = msg.ev === 'hb' ? msg.step : -1;
      pass(0, `full heartbeat at step ${full.step}, nonce ${nonce}; light heartbeat at step ${step}`);
    },
    async () => {
      const h = current!;
      const c = await s1.nextCommit(h);
      const outside = h.killList.map((p) => p.pid);
      const killStep = await s1.kill(h);
      const leaked = await stillAlive(outside, t.timeoutMs);
      const r = await resume(killStep, c.seq);
      const ev = `committed seq ${c.seq} at step ${c.step}; killed at step ${killStep} (+${outside.length} outside pids${leaked.length ? `, still alive: ${leaked.join(' ')}` : ''}); restored seq ${r.seq}, first full heartbeat step ${r.hb.step}`;
      if (r.problems.length > 0 || leaked.length > 0)
        failed(1, `${ev}; ${r.problems.join('; ') || 'a killed process survived'}`);
      else pass(1, `${ev}; fs, mem, tool digests and nonce as expected`);
    },
    async () => {
      const h = s2.start('boot');
      const full = await s2.firstFull(h);
      await s2.close();
      if (full.nonce !== nonce) pass(2, `fresh boot nonce ${full.nonce} != session nonce ${nonce}`);
      else failed(2, `a fresh boot reused nonce ${nonce}: a restore that boots fresh could not be told apart`);
    },
    async () => {
      const h = current!;
      await s1.nextCommit(h);
      await h.waitFor(isEv('ckpt-begin'), t.timeoutMs, 'checkpoint begin');
      const killStep = await s1.kill(h);
      const latest = s1.newestComplete();
      const r = await resume(killStep, latest);
      const ev = `killed during checkpoint ${h.lastCommitted!.seq + 1} at step ${killStep}; restored seq ${r.seq} (newest complete: ${latest})`;
      if (r.problems.length > 0) failed(3, `${ev}; ${r.problems.join('; ')}`);
      else pass(3, `${ev}; verified`);
    },
    async () => {
      const prev = current!;
      const committed = (await s1.nextCommit(prev)).seq;
      const killStep0 = await s1.kill(prev);
      const h = s1.start('restore');
      await h.waitFor(isEv('restore-begin'), t.timeoutMs, 'restore-begin');
      const killStep = Math.max(killStep0, await s1.kill(h));
      const r = await resume(killStep, committed);
      const ev = `killed restore of seq ${committed}; restored again: seq ${r.seq}, step ${r.hb.step}`;
      if (r.problems.length > 0) failed(4, `${ev}; ${r.problems.join('; ')}`);
      else pass(4, `${ev}; verified`);
    },
    async () => {
      const h = current!;
      const outside = h.killList.map((p) => (p.group ? -p.pid : p.pid));
      await h.stop(t.timeoutMs);
      const left = await stillAlive([-h.pid, ...outside], t.timeoutMs);
      if (left.length === 0)
        pass(5, `host group ${h.pid} and ${outside.length} outside pids/groups gone after destroy`);
      else failed(5, `still alive after destroy: ${left.join(' ')} (negative = process group)`);
    },
  ];
  try {
    for (const [i, step] of steps.entries()) {
      try {
        await step();
      } catch (err) {
        const fault = s1.adapterFault() ?? s2.adapterFault();
        if (fault !== null) results.push(row(i, 'adapter-fault', fault));
        else failed(i, `error: ${(err as Error).message.split('\n')[0]!}`);
        const broke = fault !== null ? 'adapter-fault' : 'fail';
        for (let j = i + 1; j < CHECKS.length; j++)
          results.push(row(j, broke, 'not run: an earlier check broke the session'));
        break;
      }
    }
  } finally {
    await s1.close();
    await s2.close();
    if (keepDir === undefined) rmSync(dir, { recursive: true, force: true });
  }
  return results;
}

function row(i: number, verdict: CheckResult['verdict'], evidence: string): CheckResult {
  const [id, title] = CHECKS[i]!;
  return { id, title, verdict, evidence };
}

/** The ids (negative: a process group) still alive once `timeoutMs` has passed (a killed sandbox stays a zombie for a moment). */
async function stillAlive(ids: number[], timeoutMs: number): Promise<number[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const left = ids.filter((p) => (p < 0 ? groupAlive(-p) : pidAlive(p)));
    if (left.length === 0 || Date.now() > deadline) return left;
    await sleep(50);
  }
}
