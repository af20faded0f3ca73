// The checkpoint storms' tally (analysis/checkpoint-storm-tally.ts), on hand-made events with exact expected numbers:
// counts, spread and duration p50/max, the storm checkpoints' pause and write p50/p95 beside the ordinary ones (every
// committed checkpoint but the storm ones), and a fold split across two threads giving the same summary.
import { describe, expect, it } from 'vitest';
import { CheckpointStormTally, without } from '../../harness/analysis/checkpoint-storm-tally.js';
import type { CheckpointStormEvent } from '../../harness/journal/events.js';

const storm = (cycle: number, over: Partial<CheckpointStormEvent>): CheckpointStormEvent => ({
  schemaVersion: 1,
  t: cycle,
  type: 'checkpoint-storm',
  cycle,
  sessions: 3,
  begun: 3,
  queued: 0,
  spreadMs: 10,
  durationMs: 50,
  committed: 0,
  torn: 3,
  failed: 0,
  pauseMs: [],
  writeMs: [],
  ...over,
});

const events = [
  storm(1, { spreadMs: 10, durationMs: 40, committed: 2, torn: 1, pauseMs: [20, 30], writeMs: [200, 300] }),
  storm(3, { spreadMs: 30, durationMs: 90, queued: 1 }),
  storm(4, { begun: 0, spreadMs: null, durationMs: null, torn: 0, failed: 3 }),
];
/** Every committed checkpoint of the run: the storm ones (pause 20, 30) among ordinary ones (1, 2, 3, 4). */
const all = { pauseMs: [1, 20, 2, 30, 3, 4], writeMs: [10, 200, 20, 300, 30, 40] };

describe('CheckpointStormTally', () => {
  it('counts storms and their checkpoints, and sets the storm cost beside the ordinary checkpoints', () => {
    const t = new CheckpointStormTally();
    events.forEach((e) => t.add(e));
    expect(t.summary(all).checkpointStorms).toEqual({
      storms: 3,
      sessions: { min: 3, max: 3 },
      checkpoints: { begun: 6, queued: 1, committed: 2, torn: 4, failed: 3 },
      spreadMs: { n: 2, p50: 20, max: 30 },
      durationMs: { n: 2, p50: 65, max: 90 },
      storm: { pauseMs: { n: 2, p50: 25, p95: 29.5 }, writeMs: { n: 2, p50: 250, p95: 295 } },
      ordinary: { pauseMs: { n: 4, p50: 2.5, p95: 3.85 }, writeMs: { n: 4, p50: 25, p95: 38.5 } },
    });
  });

  it('folded in two parts, says the same', () => {
    const whole = new CheckpointStormTally();
    events.forEach((e) => whole.add(e));
    const [a, b] = [new CheckpointStormTally(), new CheckpointStormTally()];
    a.add(events[0]!);
    events.slice(1).forEach((e) => b.add(e));
    a.append(structuredClone(b.partial()));
    expect(a.summary(all)).toEqual(whole.summary(all));
  });

  it('says nothing without a storm', () => {
    expect(new CheckpointStormTally().summary(all)).toEqual({});
  });

  it('takes one matching value out per storm checkpoint, within the journal rounding, and nothing else', () => {
    expect(without(new Float64Array([1, 2, 2, 3.0004, 5]), [2, 3])).toEqual([1, 2, 5]);
    expect(without(new Float64Array([1, 2]), [7])).toEqual([1, 2]);
  });
});
