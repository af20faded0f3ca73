// The guest's pause as QEMU saw it: from its STOP event (whoever stopped the guest: us, or QEMU at the end of a live
// save) to the return of our `cont`, or (background snapshot) to QEMU's own RESUME event.
import type { QmpClient } from './qmp.js';

/** Watches one pause; `stoppedAt` is set by the STOP event. Call `dispose` when done. */
export class PauseClock {
  private stoppedWallMs: number | undefined;
  private stoppedNs: bigint | undefined;
  private resumedWallMs: number | undefined;
  private resumedNs: bigint | undefined;
  private readonly off: () => void;

  constructor(qmp: QmpClient) {
    this.off = qmp.onEvent((ev) => {
      if (ev.event === 'RESUME' && this.stoppedNs !== undefined && this.resumedNs === undefined) {
        this.resumedNs = process.hrtime.bigint();
        this.resumedWallMs = ev.atMs;
      }
      if (ev.event !== 'STOP' || this.stoppedNs !== undefined) return;
      this.stoppedNs = process.hrtime.bigint();
      this.stoppedWallMs = ev.atMs;
    });
  }

  /** True once the guest has been seen to stop. */
  get stopped(): boolean {
    return this.stoppedNs !== undefined;
  }

  /** Milliseconds since the guest stopped (0 if it has not). */
  sinceStopMs(): number {
    return this.stoppedNs === undefined ? 0 : Number(process.hrtime.bigint() - this.stoppedNs) / 1e6;
  }

  /**
   * The pause in ms, called right after `cont` returned: QEMU's own STOP timestamp to now on the wall clock (QEMU
   * stamps the event when it stops the guest; we hear of it later), else from when we heard of the STOP.
   */
  pauseMs(): number {
    this.off();
    if (this.stoppedWallMs !== undefined) return Math.max(0, Date.now() - this.stoppedWallMs);
    return this.sinceStopMs();
  }

  /** True once QEMU has resumed the guest itself after the stop (a background snapshot does, once RAM is protected). */
  get resumed(): boolean {
    return this.resumedNs !== undefined;
  }

  /** The pause when QEMU resumed the guest itself: its STOP to its RESUME, both on QEMU's clock when it stamped them. */
  resumedPauseMs(): number {
    this.off();
    if (this.stoppedWallMs !== undefined && this.resumedWallMs !== undefined)
      return Math.max(0, this.resumedWallMs - this.stoppedWallMs);
    return this.stoppedNs === undefined || this.resumedNs === undefined
      ? 0
      : Number(this.resumedNs - this.stoppedNs) / 1e6;
  }

  dispose(): void {
    this.off();
  }
}
