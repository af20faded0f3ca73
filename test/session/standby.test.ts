// The standby host's side of the hand-off: only the hand-off line starts the restore; stdin's end (the runner is gone)
// rejects; the test-only skip switch is on only when set to 1.
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import {
  awaitHandOff,
  BOOT_HAND_OFF_LINE,
  HAND_OFF_LINE,
  STANDBY_SKIPS_RESTORE,
  standbySkipsRestore,
} from '../../harness/session/standby.js';

describe('awaitHandOff', () => {
  it('resolves on the hand-off line, not on other lines', async () => {
    const input = new PassThrough();
    let done = false;
    const handed = awaitHandOff(input).then(() => (done = true));
    input.write('noise\n');
    await new Promise((r) => setImmediate(r));
    expect(done).toBe(false);
    input.write(`${HAND_OFF_LINE}\n`);
    await handed;
    expect(done).toBe(true);
  });

  it('resolves with the order: a restore or a fresh session (boot)', async () => {
    for (const line of [HAND_OFF_LINE, BOOT_HAND_OFF_LINE]) {
      const input = new PassThrough();
      const handed = awaitHandOff(input);
      input.write(`${line}\n`);
      await expect(handed).resolves.toBe(line);
    }
  });

  it('rejects when stdin ends before the hand-off', async () => {
    const input = new PassThrough();
    const handed = awaitHandOff(input);
    input.end('noise\n');
    await expect(handed).rejects.toThrow(/stdin closed before the hand-off/);
  });
});

describe('standbySkipsRestore (test-only switch)', () => {
  it('is on only for 1', () => {
    expect(standbySkipsRestore({})).toBe(false);
    expect(standbySkipsRestore({ [STANDBY_SKIPS_RESTORE]: '0' })).toBe(false);
    expect(standbySkipsRestore({ [STANDBY_SKIPS_RESTORE]: '1' })).toBe(true);
  });
});
