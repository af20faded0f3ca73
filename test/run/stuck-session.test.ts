// A stuck session is the session's failure, not the harness's (issue 30, item 6), on the process target with real
// processes and real SIGSTOP: the agent stopped at its restore-begin (a warm standby's agent, started before the
// restore) or at a checkpoint's ckpt-begin, for longer than the bound, while its host keeps answering: the cycle fails
// with session-hung or checkpoint-stuck. Negative controls: the whole host group stopped the same way stays
// indeterminate (host-hung); a stop well below the bound gives an ok cycle. Hosts run compiled code (build first).
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadRuns } from '../../harness/analysis/load-runs.js';
import type { JournalEvent } from '../../harness/journal/events.js';
import { describeResult, soakIn } from '../helpers/cli.js';
import {
  freezeHost,
  isEv,
  stopAt,
  stopGroupInCheckpoint,
  stuckCheckpoint,
  WorkloadModel,
  type Rig,
  withRig as withRigIn,
} from '../helpers/stuck-session.js';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'soak-stuck-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const soak = soakIn(() => tmp, 120_000);
const AGENT = /agent\.js/;
const BOOT_MS = 60_000;
/** Bounds small enough for a short test, far above what a healthy session needs here. */
const RESUME_MS = 6000;
const CHECKPOINT_MS = 3000;
const HOST_MS = 4000;

/** A scenario whose cycle kills during work after `workMs` (long: the stuck session must be acted on before it). */
function scenario(
  name: string,
  workMs: number,
  extra: string[] = [],
  checkpointMs = CHECKPOINT_MS,
  everyMs = 100,
): string {
  return [
    `name: ${name}`,
    'target: process',
    'cycles: 1',
    'stepMs: 5',
    `checkpoint: { everyMs: ${everyMs}, timeoutMs: ${checkpointMs} }`,
    `kill: { phases: { work: 1 }, workDelayMs: [${workMs}, ${workMs}] }`,
    `resumeTimeoutMs: ${RESUME_MS}`,
    `hostTimeoutMs: ${HOST_MS}`,
    ...extra,
  ].join('\n');
}

const withRig = <T>(name: string, yaml: string, fn: (rig: Rig) => Promise<T>): Promise<T> =>
  withRigIn(path.join(tmp, name), yaml, BOOT_MS, fn);

const ofCycle = <T extends JournalEvent['type']>(events: JournalEvent[], type: T) =>
  events.filter((e): e is Extract<JournalEvent, { type: T }> => e.type === type && 'cycle' in e && e.cycle === 1);

// a standby restores its warm copy in a few ms, often before the stop sent on seeing restore-begin lands: each restore
// is held 100 ms after restore-begin, so the agent is stopped inside it
const HELD = ['standby: true', 'injectRestoreDelayMs: 100'];

describe.concurrent(
  'a session stuck during a restore (warm standby: its agent is up before the restore begins)',
  () => {
    it('agent SIGSTOPped past the resume bound, host answering: a failed resume (session-hung), never resumed', async () => {
      await withRig('restore-stuck', scenario('restore-stuck', 300, HELD), async (rig) => {
        const stopped = stopAt(rig.hosts[1]!, 'restore-begin', AGENT);
        const c = await rig.cycle(1);
        expect((await stopped).pids).toHaveLength(1);
        expect(c.outcome, JSON.stringify(c)).toBe('fail');
        expect([c.downtimeMs, c.restoredSeq, c.cause]).toEqual([null, null, null]);
        expect(c.violations.map((v) => v.code)).toEqual(['session-hung']);
        // names the wait, the bound and when the host answered
        expect(c.violations[0]!.message).toMatch(
          new RegExp(
            `sent no (restore-end|full heartbeat) within ${RESUME_MS} ms, while its host answered \\(\\d+ ms after`,
          ),
        );
      });
    });

    it('negative control: the whole host group SIGSTOPped the same way is the host hung: indeterminate', async () => {
      await withRig('restore-host-stuck', scenario('restore-host-stuck', 300, HELD), async (rig) => {
        const stopped = stopAt(rig.hosts[1]!, 'restore-begin', 'group');
        const c = await rig.cycle(1);
        await stopped;
        expect(c.outcome, JSON.stringify(c)).toBe('indeterminate');
        expect(c.cause?.code).toBe('host-hung');
        expect(c.cause?.message).toMatch(/nor any alive tick/);
        expect(c.violations).toEqual([]);
      });
    });

    it('a stop well below the bound: the session resumes and verifies (ok), its downtime counting the stop', async () => {
      await withRig('restore-short', scenario('restore-short', 300, HELD), async (rig) => {
        const stopped = stopAt(rig.hosts[1]!, 'restore-begin', AGENT);
        const cycle = rig.cycle(1);
        const s = await stopped;
        setTimeout(() => s.cont(), 300);
        const c = await cycle;
        expect(c.outcome, JSON.stringify(c)).toBe('ok');
        expect(c.downtimeMs).toBeGreaterThanOrEqual(300);
      });
    });
  },
);

describe.concurrent('a session stuck during a checkpoint', () => {
  it('agent SIGSTOPped at ckpt-begin past the checkpoint bound: killed at once, the cycle fails (checkpoint-stuck)', async () => {
    await withRig('ckpt-stuck', scenario('ckpt-stuck', 60_000), async (rig) => {
      const stopped = stopAt(rig.host, 'ckpt-begin', AGENT);
      const c = await rig.cycle(1);
      const s = await stopped;
      expect(c.outcome, JSON.stringify(c)).toBe('fail');
      expect(c.violations.map((v) => v.code)).toEqual(['checkpoint-stuck']);
      expect(c.violations[0]!.message).toMatch(
        new RegExp(
          `checkpoint \\d+ within ${CHECKPOINT_MS} ms, while its host answered|paused the session \\d+ ms, over its bound of ${CHECKPOINT_MS} ms`,
        ),
      );
      // killed where it stuck (not at the planned 60 s), during a checkpoint write, then resumed and checked
      const [kill] = ofCycle(rig.events(), 'kill');
      expect(kill!.observedPhase).toBe('checkpoint');
      expect(kill!.inFlightSeq).toBeGreaterThanOrEqual(s.msg.ev === 'ckpt-begin' ? s.msg.seq : Infinity);
      expect(c.downtimeMs).not.toBeNull();
      expect(c.restoredSeq).not.toBeNull();
    });
    // the stored run, analysed and re-checked: a failed kill-and-resume trial, a safe torn write (the resume was clean),
    // and the re-check keeps the violation it cannot see in the observation
    const dir = path.join(tmp, 'ckpt-stuck');
    const { summary } = (await loadRuns([dir])).analysis;
    expect([summary.killResume, summary.tornCheckpoint, summary.violations]).toEqual([
      expect.objectContaining({ successes: 0, trials: 1 }),
      { trials: 1, previousRestored: 1 },
      1,
    ]);
    const check = await soak('check', dir);
    expect(check.exitCode, describeResult(check)).toBe(1);
    expect(check.stdout).toMatch(/re-checked 1 of 1 cycles from their journaled observations: 1 agree, 0 changed/);
  });

  it('negative control: the whole host group SIGSTOPped at ckpt-begin is the host hung: indeterminate', async () => {
    await withRig('ckpt-host-stuck', scenario('ckpt-host-stuck', 60_000), async (rig) => {
      const stopped = stopGroupInCheckpoint(rig.host);
      const c = await rig.cycle(1);
      expect((await stopped).msg.ev).toBe('ckpt-begin');
      expect(c.outcome, JSON.stringify(c)).toBe('indeterminate');
      expect(c.cause?.code).toBe('host-hung');
      expect(c.cause?.message).toMatch(/commit of checkpoint \d+ within \d+ ms, nor any alive tick/);
    });
  });

  it('a stop well below the bound: the checkpoint commits and the cycle is ok', async () => {
    await withRig('ckpt-short', scenario('ckpt-short', 3000), async (rig) => {
      const stopped = stopAt(rig.host, 'ckpt-begin', AGENT);
      const cycle = rig.cycle(1);
      const s = await stopped;
      setTimeout(() => s.cont(), 300);
      const c = await cycle;
      expect(c.outcome, JSON.stringify(c)).toBe('ok');
      const seq = s.msg.ev === 'ckpt-begin' ? s.msg.seq : -1;
      expect(rig.events().some((e) => e.type === 'checkpoint' && e.seq === seq)).toBe(true);
    });
  });
});

const FREEZE_MS = 1500;
const FREEZE_BOUND_MS = 1200;

describe('the harness freezing the whole host group is not the session stuck', () => {
  it('a freeze longer than the checkpoint bound, through a checkpoint held in flight: no stuck checkpoint, cycle ok', async () => {
    // checkpoints 1 s apart: the agent is stopped after a commit well before the next checkpoint asks it to pause. The
    // freeze (1.5 s) outlasts the bound (1.2 s: 2x the slowest process checkpoint seen on a saturated machine) but not
    // HOST_ALIVE_GAP_MS (2 s): the host's late tick alone would not excuse it; only the freeze's hold does
    await withRig('freeze-ckpt', scenario('freeze-ckpt', 300, [], FREEZE_BOUND_MS, 1000), async (rig) => {
      let stuck: unknown = null;
      void stuckCheckpoint(rig.host).then((s) => (stuck = s));
      // the agent stopped after a commit does not answer the next checkpoint: it stays in flight into the freeze
      const agent = await stopAt(rig.host, 'ckpt-commit', AGENT);
      const { msg: begin, t: begun } = await rig.host.waitFor(isEv('ckpt-begin'), HOST_MS);
      const frozen = await freezeHost(rig.host, FREEZE_MS, HOST_MS, new WorkloadModel()); // SIGCONT wakes the agent too
      expect(frozen.thawed && frozen.violations).toEqual([]);
      const { msg: held, t: committed } = await rig.host.waitFor(isEv('ckpt-commit'), HOST_MS);
      expect([held.seq, agent.pids.length]).toEqual([begin.seq, 1]);
      // in flight through the freeze, over its bound (its pause counts the freeze too, unless the host was stopped
      // between sending ckpt-begin and asking the agent to pause)
      expect(committed - begun).toBeGreaterThan(FREEZE_MS);
      await rig.host.waitFor(isEv('ckpt-commit'), HOST_MS); // the session carries on checkpointing
      expect(stuck).toBeNull();
      const c = await rig.cycle(1);
      expect([c.outcome, c.violations], JSON.stringify(c)).toEqual(['ok', []]);
    });
  });
});

describe('the runner stalled itself is not the session stuck', () => {
  it('a message sent within the bound but read late (the runner blocked past it) still counts', async () => {
    await withRig('runner-stall', scenario('runner-stall', 300), async (rig) => {
      const { msg: last } = await rig.host.waitFor(isEv('ckpt-commit'), HOST_MS);
      // checkpoints every 100 ms: the third after this one is sent ~300 ms from now, before the 700 ms bound, and
      // alive ticks (every 200 ms) are sent before it
      const third = rig.host.waitFor((m) => m.ev === 'ckpt-commit' && m.seq >= last.seq + 3, 700, 'third commit');
      // block this process (the runner) for 1.5 s in the check phase: its overdue timer then fires before it reads
      // what the host sent meanwhile (timers come before I/O in the next loop iteration)
      await new Promise<void>((resolve) =>
        setImmediate(() => {
          Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1500);
          resolve();
        }),
      );
      const { msg } = await third;
      expect(msg.ev === 'ckpt-commit' && msg.seq).toBeGreaterThanOrEqual(last.seq + 3);
    });
  });
});
