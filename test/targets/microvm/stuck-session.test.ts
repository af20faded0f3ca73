// A stuck session on the microvm target (issue 30, item 6): real QEMU under TCG, real SIGSTOP of the QEMU process only
// (its session host keeps answering). QEMU of a warm standby (waiting for the RAM stream before the restore begins)
// stopped at restore-begin past the resume bound: a failed resume (session-hung); QEMU stopped at ckpt-begin past the
// checkpoint bound: the session is killed at once, resumed, and the cycle fails (checkpoint-stuck). Both bounds stay
// under the QMP command timeout (10 s), so the runner's bound, not a QMP error of the host, ends the wait. Kept short:
// one booted session each, one cycle. The process target's test (test/run/stuck-session.test.ts) has the controls.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { hasQemu } from '../../helpers/qemu.js';
import { stopAt, withRig as withRigIn, type Rig } from '../../helpers/stuck-session.js';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'soak-stuck-vm-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const QEMU = /qemu-system/;
/** A boot builds the guest image once (cached in vm-images/build) and boots it under TCG. */
const BOOT_MS = 600_000;

function scenario(name: string, lines: string[]): string {
  return [
    `name: ${name}`,
    'target: microvm',
    'cycles: 1',
    'targetOptions: { memoryMiB: 256, disk: false, accel: tcg, ramCapture: stream }',
    'hostTimeoutMs: 60000',
    ...lines,
  ].join('\n');
}

const withRig = <T>(name: string, yaml: string, fn: (rig: Rig) => Promise<T>): Promise<T> =>
  withRigIn(path.join(tmp, name), yaml, BOOT_MS, fn);

describe.skipIf(!hasQemu())('microvm: a stuck guest is the session failing (real QEMU, SIGSTOP)', () => {
  it('QEMU stopped at restore-begin past the resume bound: a failed resume (session-hung), never resumed', async () => {
    const yaml = scenario('vm-restore-stuck', [
      'standby: true',
      'checkpoint: { everyMs: 1500 }',
      'kill: { phases: { work: 1 }, workDelayMs: [500, 500] }',
      'resumeTimeoutMs: 6000',
    ]);
    await withRig('vm-restore-stuck', yaml, async (rig) => {
      const standby = rig.hosts[1]!;
      expect(standby.exited).toBeNull(); // ready: its QEMU waits for the restore's RAM
      const stopped = stopAt(standby, 'restore-begin', QEMU);
      const c = await rig.cycle(1);
      expect((await stopped).pids).toHaveLength(1);
      expect(c.outcome, JSON.stringify(c)).toBe('fail');
      expect([c.downtimeMs, c.restoredSeq, c.cause]).toEqual([null, null, null]);
      expect(c.violations.map((v) => v.code)).toEqual(['session-hung']);
      expect(c.violations[0]!.message).toMatch(/within 6000 ms, while its host answered/);
    });
  }, 900_000);

  it('QEMU stopped at ckpt-begin past the checkpoint bound: killed at once, resumed, the cycle fails', async () => {
    const yaml = scenario('vm-ckpt-stuck', [
      'checkpoint: { everyMs: 1500, timeoutMs: 6000 }',
      'kill: { phases: { work: 1 }, workDelayMs: [120000, 120000] }',
      'resumeTimeoutMs: 120000',
    ]);
    await withRig('vm-ckpt-stuck', yaml, async (rig) => {
      const stopped = stopAt(rig.host, 'ckpt-begin', QEMU);
      const c = await rig.cycle(1);
      expect((await stopped).pids).toHaveLength(1);
      expect(c.outcome, JSON.stringify(c)).toBe('fail');
      expect(c.violations.map((v) => v.code)).toEqual(['checkpoint-stuck']);
      expect(c.violations[0]!.message).toMatch(/commit of checkpoint \d+ within 6000 ms, while its host answered/);
      expect(c.observedPhase).toBe('checkpoint');
      expect(c.downtimeMs).not.toBeNull(); // resumed from the previous checkpoint and checked
    });
  }, 900_000);
});
