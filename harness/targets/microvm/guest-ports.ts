// The guest's serial ports beside its console, each on when its option asks: the guest-state probe (ttyS1,
// guest-probe.ts) and the wall-clock resync and RNG seed (ttyS2, clock-resync.ts); the same on every QEMU of a session.
import type { ProbeLine } from '../../check/survival.js';
import { ClockResync } from './clock-resync.js';
import { GuestProbe } from './guest-probe.js';
import { freshEntropy, type MicrovmOptions } from './options.js';

/** The ports of one session: attached to each new QEMU, told when a restored guest runs. */
export class GuestPorts {
  private readonly probe: GuestProbe | null;
  private readonly clock: ClockResync | null;

  constructor(
    private readonly on: { probe?: boolean; resync?: boolean; seed?: boolean; clockAfter?: readonly number[] },
  ) {
    this.probe = on.probe === true ? new GuestProbe(on.clockAfter) : null;
    this.clock = on.resync === true || on.seed === true ? new ClockResync() : null;
  }

  /** The ports a session's options ask for: the probe, `wallClock: resync`, `entropy: fresh` (default on cold boots). */
  static of(opts: MicrovmOptions, probe: boolean, clockAfter?: readonly number[]): GuestPorts {
    return new GuestPorts({ probe, resync: opts.wallClock === 'resync', seed: freshEntropy(opts), clockAfter });
  }

  /** The socket of each port that is on, for QEMU's command line (spec.ts), named by `sock`. */
  sockets(sock: (name: string) => string): { probeSocket?: string; clockSocket?: string } {
    return {
      ...(this.probe ? { probeSocket: sock('probe.sock') } : {}),
      ...(this.clock ? { clockSocket: sock('clock.sock') } : {}),
    };
  }

  onProbe(listener: (line: ProbeLine) => void): void {
    this.probe?.listeners.push(listener);
  }

  /** A new QEMU was started: connect to its ports. */
  async attach(sock: (name: string) => string): Promise<void> {
    await this.clock?.attach(sock('clock.sock'));
    await this.probe?.attach(sock('probe.sock'));
  }

  /**
   * A restored guest runs (after `cont`): set its wall clock and reseed its RNG (in the background, at once), then ask
   * the probe's holder to examine, so the examination sees the guest as a resumed session would be handed over.
   */
  resumed(timeoutMs: number): void {
    const at = Date.now();
    const clocked = this.on.resync === true ? this.clock?.resync(timeoutMs) : undefined;
    const seeded = this.on.seed === true ? this.clock?.reseed(timeoutMs) : undefined;
    void Promise.all([clocked, seeded]).then(() => this.probe?.examine(timeoutMs, at));
  }

  /** What the resync port said last (`set <ms>`), for diagnostics; undefined when the resync is off. */
  clockAnswer(): string | undefined {
    return this.clock?.last;
  }

  detach(): void {
    this.probe?.detach();
    this.clock?.detach();
  }
}
