// The tallies of the journal's side events, which the accumulator hands over as they come: effects (issue 34),
// guest state (issue 33), host crashes, checkpoint storms and memory squeezes (issue 36); one field of the
// accumulator, so its file stays under the house's length.
import type { JournalEvent } from '../journal/events.js';
import type { RunStartEvent } from '../journal/events.js';
import { EffectsTally } from './effects-tally.js';
import { GuestStateTally } from './guest-state-tally.js';
import { CheckpointStormTally } from './checkpoint-storm-tally.js';
import { HostCrashTally } from './host-crash-tally.js';
import { MemoryPressureTally } from './memory-pressure-tally.js';
import { WorkTally } from './work-tally.js';
import type { PartialFold } from './partial-fold.js';
import type { CheckpointTable } from './summary.js';

/** The side tallies' fields of a partial fold. */
type Side = 'effects' | 'guestState' | 'hostCrashes' | 'checkpointStorms' | 'memoryPressure' | 'work';

/** Effects and guest-state events, counted. */
export class SideTallies {
  private readonly effects = new EffectsTally();
  private readonly guest = new GuestStateTally();
  private readonly crashes = new HostCrashTally();
  private readonly storms = new CheckpointStormTally();
  private readonly squeezes = new MemoryPressureTally();
  /** The coding workload's accounts, from observation events (the accumulator hands those over too). */
  readonly work = new WorkTally();

  /** Before the next run's events (a resumed or merged run: the effects tally pairs resumes within one run). */
  nextRun(): void {
    this.effects.nextRun();
  }

  /** True when `e` was one of theirs. */
  add(e: JournalEvent): boolean {
    if (e.type === 'effects') this.effects.add(e);
    else if (e.type === 'guest-state') this.guest.add(e);
    else if (e.type === 'host-crash') this.crashes.add(e);
    else if (e.type === 'checkpoint-storm') this.storms.add(e);
    else if (e.type === 'memory-pressure') this.squeezes.add(e);
    else return false;
    return true;
  }

  partial(): Pick<PartialFold, Side> {
    return {
      effects: this.effects.partial(),
      guestState: this.guest.partial(),
      hostCrashes: this.crashes.partial(),
      checkpointStorms: this.storms.partial(),
      memoryPressure: this.squeezes.partial(),
      work: this.work.partial(),
    };
  }

  append(p: Pick<PartialFold, Side>): void {
    this.effects.append(p.effects);
    this.guest.append(p.guestState);
    this.crashes.append(p.hostCrashes);
    this.storms.append(p.checkpointStorms);
    this.squeezes.append(p.memoryPressure);
    this.work.append(p.work);
  }

  /** Their summary sections; the promised classes come from the run-start's scenario and the target's facts. */
  summary(start: RunStartEvent, target: Record<string, unknown>, checkpoints: CheckpointTable) {
    const guest = this.guest.summary(start.scenario.promises, target.promises);
    const crashes = this.crashes.summary();
    return {
      ...this.effects.summary(),
      ...guest,
      ...crashes,
      ...this.storms.summary(checkpoints),
      ...this.squeezes.summary(),
      ...this.work.summary(),
    };
  }
}
