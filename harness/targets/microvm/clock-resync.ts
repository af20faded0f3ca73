// Wall-clock resync of a restored micro-VM guest (targetOptions wallClock: resync): the guest's clock stops with the
// guest and continues from the checkpoint's instant, so after a restore the host writes its epoch ms to the guest's
// ttyS2 and the guest's clock-sync (vm-images/agent/clock-sync.c) sets CLOCK_REALTIME to it. The same port carries a
// fresh RNG seed (targetOptions entropy: fresh): the kernel RNG state is in the RAM snapshot, the same in every clone.
import { randomBytes } from 'node:crypto';
import type { Socket } from 'node:net';
import { connectPort } from './serial-port.js';

/**
 * SOAK_TEST_CLOCK_RESYNC_BACK_S=N (TEST-ONLY negative control (b) of issue 33): the resync sets the guest's wall clock
 * N seconds in the past, a runtime that sets the clock back after a restore; only the clock-wall classes must see it.
 */
export const CLOCK_RESYNC_BACK_S = 'SOAK_TEST_CLOCK_RESYNC_BACK_S';

/**
 * SOAK_TEST_RESYNC_DROPS_LISTENERS=1 (TEST-ONLY negative control (d) of issue 33): before the time, the resync asks the
 * guest's clock-sync to destroy every TCP listener from outside its process (SOCK_DESTROY, what `ss -K` does), a
 * runtime that restores a guest without its listening sockets; only tcp-listener must see it.
 */
export const RESYNC_DROPS_LISTENERS = 'SOAK_TEST_RESYNC_DROPS_LISTENERS';

/** How often the time is written again until the guest answers `set` (bytes around a restore may be lost). */
const AGAIN_MS = 100;

const NIBBLES = 'abcdefghijklmnop';

/** The resync port of one session, across its QEMU processes. */
export class ClockResync {
  private conn: Socket | null = null;
  private answered: (() => void) | null = null;
  /** Told each answer to a seed: `seeded <its first 8 letters>` or `seed-error <reason>`. */
  private seeded: ((answer: string) => void) | null = null;
  private dropped: (() => void) | null = null;
  /** What the guest said last (`set <ms>`, `error <reason>`), for the target's facts and diagnostics. */
  last = '';

  /** A new QEMU's clock port (serial-port.ts); an Error when it cannot be reached. */
  async attach(socketPath: string): Promise<void> {
    this.detach();
    const conn = await connectPort(socketPath, (line) => {
      this.last = line.slice(0, 200);
      if (/^(set \d+|error .*)$/.test(line)) this.answered?.();
      if (/^(seeded [a-p]{8}|seed-error .*)$/.test(line)) this.seeded?.(line);
      if (/^(dropped \d+ of \d+|drop-error .*)$/.test(line)) this.dropped?.();
    });
    if (conn instanceof Error) throw conn;
    this.conn = conn;
  }

  /** Write the host's time now and every AGAIN_MS until the guest answers; resolves then, or after `timeoutMs`. */
  async resync(timeoutMs: number): Promise<void> {
    if (process.env[RESYNC_DROPS_LISTENERS] === '1')
      await this.ask('drop-listeners', timeoutMs, (f) => (this.dropped = f));
    return this.setTime(timeoutMs);
  }

  /** TEST-ONLY: write `text` every AGAIN_MS until the guest answers it (`bind` receives the answer's callback). */
  private ask(text: string, timeoutMs: number, bind: (f: (() => void) | null) => void): Promise<void> {
    const write = (): void => void this.conn?.write(`${text}\n`);
    return new Promise<void>((resolve) => {
      const timer = setInterval(write, AGAIN_MS);
      const deadline = setTimeout(done, timeoutMs);
      function done(): void {
        clearInterval(timer);
        clearTimeout(deadline);
        bind(null);
        resolve();
      }
      bind(done);
      write();
    });
  }

  private setTime(timeoutMs: number): Promise<void> {
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

  /**
   * Write a new 32-byte seed from the host's RNG (`seed <64 letters a-p>`: no digit, so a cut line is never a time) now
   * and every AGAIN_MS until the guest answers `seeded` with its first 8 letters; resolves then, or after `timeoutMs`.
   */
  reseed(timeoutMs: number): Promise<void> {
    const seed = [...randomBytes(32)].map((b) => NIBBLES[b >> 4]! + NIBBLES[b & 15]!).join('');
    const write = (): void => void this.conn?.write(`seed ${seed}\n`);
    return new Promise<void>((resolve) => {
      const timer = setInterval(write, AGAIN_MS);
      const deadline = setTimeout(() => this.seeded?.(''), timeoutMs);
      this.seeded = (answer) => {
        // a seed line left in the guest's serial buffer by a checkpoint is answered too: not this restore's seed
        if (answer !== '' && !answer.startsWith('seed-error') && answer !== `seeded ${seed.slice(0, 8)}`) return;
        clearInterval(timer);
        clearTimeout(deadline);
        this.seeded = null;
        resolve();
      };
      write();
    });
  }

  detach(): void {
    this.dropped?.();
    this.answered?.();
    this.seeded?.('');
    this.conn?.destroy();
    this.conn = null;
  }
}
