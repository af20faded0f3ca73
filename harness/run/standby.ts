// Warm standby (scenario `standby: true`): keep one session host started ahead of need (modules loaded, store open,
// target prepared) and hand it the restore after a kill, so the measured resume skips the host's start-up. The next
// standby is started only after the resume was judged (off the measured path); downtime is still kill -> first
// verified heartbeat. A standby that is not ready, or died, is not used: the cycle starts a cold host instead.
import { isEv, type HostHandle } from '../session/host-handle.js';
import type { Logger } from '../core/logger.js';
import { reassignHostCycle } from './host-journal.js';
import { HAND_OFF_LINE, type HandOff } from '../session/standby.js';

/** Start a standby host for `cycle` (journals host-start with mode 'standby'). */
export type SpawnStandby = (cycle: number) => HostHandle;

/** The run's one warm standby host. */
export class WarmStandby {
  private host: HostHandle | null = null;
  private ready: Promise<void> = Promise.resolve();
  private isReady = false;

  constructor(
    private readonly spawn: SpawnStandby,
    private readonly timeoutMs: number,
    private readonly log: Logger,
  ) {}

  /** Start a standby unless a live one is waiting; called once a resume was judged (off the measured path). */
  replenish(cycle: number): void {
    if (this.host && this.host.exited === null) return;
    const h = this.spawn(cycle);
    this.host = h;
    this.isReady = false;
    this.ready = h.waitFor(isEv('standby-ready'), this.timeoutMs, 'standby-ready').then(
      () => {
        if (this.host === h) this.isReady = true;
      },
      (err: unknown) => {
        this.log.warn({ cycle, err: (err as Error).message }, 'standby host did not get ready: a cold host restores');
        if (this.host === h) this.host = null;
        void h.reap(this.timeoutMs);
      },
    );
  }

  /** Wait (bounded by the host timeout) for the standby to be ready, so a kill aimed after this finds it warm. */
  whenReady(): Promise<void> {
    return this.ready;
  }

  /** Hand the ready standby the restore (or `boot`: the fresh session) for `cycle` and give it up; null when none is ready. */
  take(cycle: number, order: HandOff = HAND_OFF_LINE): HostHandle | null {
    const h = this.host;
    if (!h || !this.isReady || h.exited !== null) return null;
    this.host = null;
    this.isReady = false;
    reassignHostCycle(h, cycle);
    h.handOff(order);
    return h;
  }

  /** Kill the waiting standby, if any (before a power loss: it must not hold the store across it; at the run's end). */
  async discard(reapMs: number): Promise<void> {
    const h = this.host;
    this.host = null;
    this.isReady = false;
    if (h) await h.reap(reapMs);
  }
}
