// Heartbeat fan-out for the microvm target: listeners, the latest step seen, and waiting for a matching heartbeat.
import { TargetError } from '../../core/errors.js';
import type { Heartbeat } from '../../check/heartbeat.js';

export class HeartbeatHub {
  private readonly listeners = new Set<(hb: Heartbeat) => void>();
  private readonly waiters = new Set<(hb: Heartbeat) => void>();
  /** Step of the latest heartbeat (-1 before the first). */
  lastStep = -1;

  on(listener: (hb: Heartbeat) => void): void {
    this.listeners.add(listener);
  }

  dispatch(hb: Heartbeat): void {
    this.lastStep = hb.step;
    for (const w of this.waiters) w(hb);
    for (const l of this.listeners) l(hb);
  }

  /**
   * Resolve with the next heartbeat matching `pred`. Rejects after `timeoutMs`, or as soon as `gone()` returns a reason
   * (QEMU exited); `diagnostics()` is appended to the error.
   */
  next(
    pred: (hb: Heartbeat) => boolean,
    timeoutMs: number,
    what: string,
    gone: () => string | undefined,
    diagnostics: () => string,
  ): Promise<Heartbeat> {
    return new Promise<Heartbeat>((resolve, reject) => {
      const poll = setInterval(() => {
        if (gone() !== undefined) done(new TargetError(`${what}: ${diagnostics()}`));
      }, 50);
      const timer = setTimeout(
        () =>
          done(
            new TargetError(`${what}: none within ${timeoutMs} ms (${diagnostics() || 'no output from the guest'})`),
          ),
        timeoutMs,
      );
      const waiter = (hb: Heartbeat): void => {
        if (pred(hb)) done(undefined, hb);
      };
      const done = (err?: Error, hb?: Heartbeat): void => {
        clearInterval(poll);
        clearTimeout(timer);
        this.waiters.delete(waiter);
        if (err) reject(err);
        else resolve(hb!);
      };
      this.waiters.add(waiter);
    });
  }
}
