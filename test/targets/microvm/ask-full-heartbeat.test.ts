// The restore's full-heartbeat request (guest-process.ts askFullHeartbeat): written once while the guest is paused,
// then again every 20 ms once it runs, until the first full heartbeat; never again after it, even when that heartbeat
// comes before the target learns that `cont` returned. A stand-in for QEMU (it only counts console writes): the real
// guest that missed the first request is in docs/effects.md, with the measured rate. Fake timers: no sleep.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { HeartbeatHub } from '../../../harness/targets/guest/heartbeats.js';
import { askFullHeartbeat } from '../../../harness/targets/microvm/guest-process.js';
import type { QemuProcess } from '../../../harness/targets/microvm/qemu.js';

/** TEST DOUBLE of a QEMU process: the console writes it got, never exited. */
function fakeQemu(): { qemu: QemuProcess; writes: string[] } {
  const writes: string[] = [];
  const qemu = { writeConsole: (t: string) => writes.push(t), exitReason: () => undefined } as unknown as QemuProcess;
  return { qemu, writes };
}
const full = { step: 3, nonce: '0123456789abcdef', full: true } as const;
afterEach(() => vi.useRealTimers());

describe('askFullHeartbeat', () => {
  it('asks once while paused, again every 20 ms once running, and stops at the first full heartbeat', async () => {
    vi.useFakeTimers();
    const hub = new HeartbeatHub();
    const { qemu, writes } = fakeQemu();
    const running = askFullHeartbeat(hub, qemu, 60_000);
    expect(writes).toEqual(['F']);
    await vi.advanceTimersByTimeAsync(100);
    expect(writes).toEqual(['F']); // paused: nothing more until the guest runs
    running(undefined);
    await vi.advanceTimersByTimeAsync(60);
    expect(writes.length).toBe(4);
    hub.dispatch({ step: 3, nonce: full.nonce, full: false }); // a light heartbeat does not end it
    await vi.advanceTimersByTimeAsync(20);
    expect(writes.length).toBe(5);
    hub.dispatch(full);
    await vi.advanceTimersByTimeAsync(1000);
    expect(writes.length).toBe(5);
  });

  it('a full heartbeat before `running` is called: no request after it', async () => {
    vi.useFakeTimers();
    const hub = new HeartbeatHub();
    const { qemu, writes } = fakeQemu();
    const running = askFullHeartbeat(hub, qemu, 60_000);
    hub.dispatch(full);
    await vi.advanceTimersByTimeAsync(0);
    running(undefined);
    await vi.advanceTimersByTimeAsync(1000);
    expect(writes).toEqual(['F']);
  });
});
