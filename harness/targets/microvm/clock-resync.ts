// Wall-clock resync of a restored micro-VM guest (targetOptions wallClock: resync): the guest's clock stops with the
// guest and continues from the checkpoint's instant, so after a restore the host writes its epoch ms to the guest's
// ttyS2 and the guest's clock-sync (vm-images/agent/clock-sync.c) sets CLOCK_REALTIME to it.
import type { Socket } from 'node:net';
import { connectPort } from './serial-port.js';

/**
 * SOAK_TEST_CLOCK_RESYNC_BACK_S=N (TEST-ONLY negative control (b) of issue 33): the resync sets the guest's wall clock
 * N seconds in the past, a runtime that sets the clock back after a restore; only the clock-wall classes must see it.
 */
export const CLOCK_RESYNC_BACK_S = 'SOAK_TEST_CLOCK_RESYNC_BACK_S';

/** How often the time is written again until the guest answers `set` (bytes around a restore may be lost). */
const AGAIN_MS = 100;

/** The resync port of one session, across its QEMU processes. */
export class ClockResync {
  private conn: Socket | null = null;
  private answered: (() => void) | null = null;
  /** What the guest said last (`set <ms>`, `error <reason>`), for the target's facts and diagnostics. */
  last = '';

  /** A new QEMU's clock port (serial-port.ts); an Error when it cannot be reached. */
  async attach(socketPath: string): Promise<void> {
    this.detach();
    const conn = await connectPort(socketPath, (line) => {
      this.last = line.slice(0, 200);
      if (/^(set \d+|error .*)$/.test(line)) this.answered?.();
    });
    if (conn instanceof Error) throw conn;
    this.conn = conn;
  }

  /** Write the host's time now and every AGAIN_MS until the guest answers; resolves then, or after `timeoutMs`. */
  resync(timeoutMs: number): Promise<void> {
    const back = Number(process.env[CLOCK_RESYNC_BACK_S] ?? 0) * 1000 || 0;
    const write = (): void => void this.conn?.write(`${Date.now() - back}\n`);
    return new Promise<void>((resolve) => {
      const timer = setInterval(write, AGAIN_MS);
      const deadline = setTimeout(() => this.answered?.(), timeoutMs);
      this.answered = () => {
        clearInterval(timer);
        clearTimeout(deadline);
        this.answered = null;
        resolve();
      };
      write();
    });
  }

  detach(): void {
    this.answered?.();
    this.conn?.destroy();
    this.conn = null;
  }
}
