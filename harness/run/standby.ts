// Warm standby (scenario `standby: true`): keep session hosts started ahead of need (modules loaded, store open,
// target prepared) and hand it the restore after a kill, so the measured resume skips the host's start-up. The next
// standby is started only after the resume was judged (off the measured path); downtime is still kill -> first
// verified heartbeat. A standby that is not ready, or died, is not used: the cycle starts a cold host instead; one that
// died of an adapter fault ends the run at the next hand-off (an AdapterError: no session of its own to fail).
import { isEv, type HostHandle } from '../session/host-handle.js';
import { AdapterError } from '../core/errors.js';
import type { Logger } from '../core/logger.js';
import { reassignHostCycle } from './host-journal.js';
import { HAND_OFF_LINE, type HandOff } from '../session/standby.js';

/** Start a standby host for `cycle` (journals host-start with mode 'standby'). */
export type SpawnStandby = (cycle: number) => HostHandle;

/** One standby host and whether it said it is ready. */
interface Waiting {
  host: HostHandle;
  ready: Promise<void>;
  isReady: boolean;
}

/**
 * The run's warm standby hosts: `size` of them (2 when the kill plan kills during restores, so the restore after such a
 * kill finds a warm host too).
 */
export class WarmStandby {
  private waiting: Waiting[] = [];
  /** The adapter fault a standby died of (its message), thrown at the next take or whenReady. */
  private fault: string | null = null;

  constructor(
    private readonly spawn: SpawnStandby,
    private readonly timeoutMs: number,
    private readonly log: Logger,
    private readonly size = 1,
  ) {}

  /** Start standbys until `size` live ones wait; called once a resume was judged (off the measured path). */
  replenish(cycle: number): void {
    this.waiting = this.waiting.filter((w) => w.host.exited === null);
    while (this.waiting.length < this.size) {
      const h = this.spawn(cycle);
      const w: Waiting = { host: h, ready: Promise.resolve(), isReady: false };
      w.ready = h.waitFor(isEv('standby-ready'), this.timeoutMs, 'standby-ready').then(
        () => {
          w.isReady = true;
        },
        (err: unknown) => {
          this.log.warn({ cycle, err: (err as Error).message }, 'standby host did not get ready: a cold host restores');
          this.fault ??= h.adapterFault; // an exited host was read to its end: its adapter fault is known
          this.waiting = this.waiting.filter((x) => x !== w);
          void h.reap(this.timeoutMs);
        },
      );
      this.waiting.push(w);
    }
  }

  /** Wait (bounded by the host timeout) for every standby to be ready, so a kill aimed after this finds them warm. */
  whenReady(): Promise<void> {
    return Promise.all(this.waiting.map((w) => w.ready)).then(() => this.throwFault());
  }

  private throwFault(): void {
    if (this.fault !== null) throw new AdapterError(this.fault);
  }

  /** Hand a ready standby the restore (or `boot`: the fresh session) for `cycle` and give it up; null when none is ready. */
  take(cycle: number, order: HandOff = HAND_OFF_LINE): HostHandle | null {
    this.throwFault();
    const w = this.waiting.find((x) => x.isReady && x.host.exited === null);
    if (!w) return null;
    this.waiting = this.waiting.filter((x) => x !== w);
    reassignHostCycle(w.host, cycle);
    w.host.handOff(order);
    return w.host;
  }

  /** SIGKILL every waiting standby's group and kill list now, without waiting (a host crash takes them too). */
  killAll(): void {
    for (const w of this.waiting) w.host.kill();
  }

  /** Kill the waiting standbys (before a power loss: they must not hold the store across it; at the run's end). */
  async discard(reapMs: number): Promise<void> {
    const all = this.waiting;
    this.waiting = [];
    await Promise.all(all.map((w) => w.host.reap(reapMs)));
  }
}
