// The guest-state probe in a soak (issue 33): hand every host the probe binary (targetOptions.probe) when the scenario
// probes (field probe, on by default with promises), and after each cycle journal one guest-state event per resumed
// session: the probe's examination of it, `unprobed` when the target cannot run it, or `unexamined` with the reason.
import { setTimeout as sleep } from 'node:timers/promises';
import type { JournalWriter } from '../journal/writer.js';
import type { GuestStateEventFields } from '../journal/guest-state-event.js';
import type { Scenario } from '../scenario/scenario.js';
import type { HostHandle } from '../session/host-handle.js';
import { buildProbe } from '../targets/guest/probe-build.js';
import { unprobed } from '../check/survival.js';

/** How long a fresh session's resumed host may wait for its probe's word before it is stopped (a hung class: 2 s). */
const SETTLE_MS = 60_000;

/** Whether a scenario's sessions run the probe: its field probe, else on when it lists promises. */
export function probes(scenario: Scenario): boolean {
  return scenario.probe ?? (scenario.promises?.length ?? 0) > 0;
}

/**
 * The scenario a run journals and runs: an adapter that lists promises in its describe answer (target fact
 * `promises`) turns the probe on unless the scenario says `probe` itself, so its promises are judged, not left unchecked.
 */
export function withAdapterPromises(scenario: Scenario, target: Record<string, unknown>): Scenario {
  const listed = typeof target.promises === 'string' && target.promises !== '';
  return listed && scenario.probe === undefined ? { ...scenario, probe: true } : scenario;
}

/** The runner's side of the probe of a run whose scenario probes. */
export class RunProbes {
  /** Resumed sessions whose examination is not journaled yet, with the cycle of their restore. */
  private readonly pending = new Map<HostHandle, number>();
  private readonly seen = new WeakSet<HostHandle>();

  private constructor(private readonly binary: string) {}

  /** Build the probe (TargetError naming gcc when it cannot be); null when the scenario does not probe. */
  static async start(scenario: Scenario): Promise<RunProbes | null> {
    return probes(scenario) ? new RunProbes(await buildProbe()) : null;
  }

  /** The scenario with the probe binary in its targetOptions. */
  hosted(scenario: Scenario): Scenario {
    return { ...scenario, targetOptions: { ...scenario.targetOptions, probe: this.binary } };
  }

  /** After cycle `cycle`: note its resumed session (`host`), journal what the probe said of every noted one so far. */
  account(journal: JournalWriter, cycle: number, host: HostHandle | null): void {
    if (host !== null && host.restoredFrom !== null && !this.seen.has(host)) {
      this.seen.add(host);
      this.pending.set(host, cycle);
    }
    this.flush(journal, false);
  }

  /**
   * Before a fresh session's resumed host is stopped: let its probe say what it examined (a guest's answer comes a
   * moment after the resume: the micro-VM asks its restored holder once the guest runs), at most SETTLE_MS.
   */
  async settle(host: HostHandle | null): Promise<void> {
    if (host === null || host.restoredFrom === null) return;
    const deadline = Date.now() + SETTLE_MS;
    while (host.probeWord === null && host.exited === null && Date.now() < deadline) await sleep(20);
  }

  /** At the run's end, every host gone: what is still not examined is journaled as such. */
  finish(journal: JournalWriter): void {
    this.flush(journal, true);
  }

  private flush(journal: JournalWriter, end: boolean): void {
    for (const [host, cycle] of this.pending) {
      const fields = examination(host, cycle, end || host.exited !== null);
      if (fields === null) continue;
      journal.append({ type: 'guest-state', ...fields });
      this.pending.delete(host);
    }
  }
}

/** What the probe said of `host`'s resume, or null while it may still speak (`gone`: it cannot any more). */
function examination(host: HostHandle, cycle: number, gone: boolean): GuestStateEventFields | null {
  const w = host.probeWord;
  if (w?.event === 'examined') return { cycle, mode: w.mode, observations: w.observations };
  if (w?.event === 'unprobed') return { cycle, mode: 'unprobed', observations: unprobed(w.reason).observations };
  if (w?.event === 'error') return { cycle, mode: 'unexamined', observations: [], problem: w.message };
  if (!gone) return null;
  return { cycle, mode: 'unexamined', observations: [], problem: 'the session ended before the probe examined it' };
}
