// The demo's whole-host kill tally (harness/demo/host-crash.ts): "all N back" is the loop's start to the last session's
// first verified heartbeat (its kill time plus its journaled downtime); a session not resumed means not all back.
import { describe, expect, it } from 'vitest';
import { HostCrashes, hostCrashEvent, hostCrashText } from '../../harness/demo/host-crash.js';
import { eventProblems } from '../../harness/journal/schema.js';
import type { CycleEvent } from '../../harness/journal/events.js';

const cycle = (outcome: CycleEvent['outcome'], downtimeMs: number | null) => ({ outcome, downtimeMs }) as CycleEvent;

describe('HostCrashes', () => {
  it('all back: the latest session back, from the loop start', () => {
    const c = new HostCrashes(3);
    expect(c.view()).toBeNull();
    c.begin(1000);
    expect(c.pending()).toBe(true);
    expect(c.interrupted(1, cycle('ok', 400), 'host', 1000.5)?.back).toBe(1);
    expect(hostCrashText(c.view()!)).toBe('1 of 3 back so far');
    c.interrupted(0, cycle('ok', 700), 'host', 1000.25);
    expect(c.interrupted(2, cycle('ok', 500), 'person', 1001)).toBeNull(); // not this kill's
    const v = c.interrupted(2, cycle('ok', 650), 'host', 1000.75)!;
    expect(v).toMatchObject({ number: 1, back: 3, done: true, allBackMs: 700.25 });
    expect(hostCrashText(v)).toBe('all 3 back in 700.3 ms');
    // journaled as a soak journals its host crashes: the loop's spread, all back, the time to the last
    const event = hostCrashEvent(v);
    expect(event).toEqual({
      type: 'host-crash',
      cycle: 1,
      sessions: 3,
      killed: 3,
      spreadMs: 0.5,
      back: 3,
      lastBackMs: 700.25,
    });
    const line = { schemaVersion: 1, t: 1, ...event };
    expect(eventProblems(line)).toBeNull();
    expect(c.pending()).toBe(false);
    c.begin(2000);
    for (const i of [0, 1, 2]) c.interrupted(i, cycle('ok', 1622.2), 'host', 2000);
    expect(hostCrashText(c.view()!)).toBe('all 3 back in 1.62 s'); // as the page's ms() shows a time
  });

  it('a session not resumed: done, not all back, named', () => {
    const c = new HostCrashes(2);
    c.begin(0);
    c.interrupted(0, cycle('ok', 10), 'host', 0);
    const v = c.interrupted(1, cycle('fail', 12), 'host', 0)!;
    expect(v).toMatchObject({ back: 1, done: true, allBackMs: null });
    expect(hostCrashEvent(v)).toMatchObject({ killed: 2, back: 1, lastBackMs: null }); // not all back: no time
    expect(hostCrashText(v)).toBe('1 of 2 back, session 1 not back verified (fail)');
    c.begin(50);
    expect(c.view()).toMatchObject({ number: 2, back: 0, done: false });
  });

  it('a session down at the kill (its boot gave up) is left out, and named', () => {
    const c = new HostCrashes(3);
    c.begin(100, [1]);
    c.interrupted(0, cycle('ok', 20), 'host', 100);
    expect(c.pending()).toBe(true);
    expect(hostCrashText(c.view()!)).toBe('1 of 2 back so far (not running at the kill: session 1)');
    const v = c.interrupted(2, cycle('ok', 30), 'host', 101)!;
    expect(v).toMatchObject({ sessions: 2, back: 2, done: true, allBackMs: 31 });
    expect(hostCrashText(v)).toBe('all 2 back in 31.0 ms (not running at the kill: session 1)');
    expect(c.interrupted(1, cycle('ok', 5), 'host', 102)).toBeNull(); // not part of this kill
  });
});
