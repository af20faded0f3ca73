// The journal schema (schema.ts): every line of the checked-in journals is valid, an observation as the runner journals
// it is valid and taken by the fast path, and each rule says what it wants and what it got.
import { describe, expect, it } from 'vitest';
import { AnalysisLineReader } from '../../harness/analysis/fastpath/line-reader.js';
import { RunAccumulator } from '../../harness/analysis/accumulator.js';
import { encodeEvent } from '../../harness/journal/codec.js';
import type { MemoryPressureEvent } from '../../harness/journal/events.js';
import { observationEvent } from '../../harness/journal/observation.js';
import { COUNT, CYCLE_ID, DURATION_MS, follows, STEP_DELTA } from '../../harness/journal/number-rules.js';
import { EVENT_SCHEMAS, eventProblems } from '../../harness/journal/schema.js';
import { fixtureNames, fixtureText } from '../helpers/journals.js';

const parsedLines = (name: string): { type: string }[] =>
  fixtureText(name)
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l) as { type: string });

describe('journal schema', () => {
  it.each(fixtureNames)('%s: every line is a valid event', (name) => {
    for (const e of parsedLines(name)) expect(eventProblems(e), JSON.stringify(e).slice(0, 100)).toBeNull();
  });

  it('the fixtures hold every event type but the kill list, the fault, the host crash, the storm, the memory squeeze, effects and guest state (tested by hand)', () => {
    // effects: test/journal/effects-event.test.ts; guest-state: test/journal/guest-state-event.test.ts
    const seen = new Set(fixtureNames.flatMap((n) => parsedLines(n).map((e) => e.type)));
    expect(Object.keys(EVENT_SCHEMAS).filter((t) => !seen.has(t))).toEqual([
      'kill-list',
      'fault',
      'host-crash',
      'checkpoint-storm',
      'memory-pressure',
      'effects',
      'guest-state',
    ]);
  });

  it('a memory squeeze as the runner journals it is valid; a victim of no session is null, never a negative index', () => {
    const squeeze: MemoryPressureEvent = {
      schemaVersion: 1,
      t: 1,
      type: 'memory-pressure',
      cycle: 2,
      sessions: 4,
      usageBytes: 197382144,
      limitBytes: 186224640,
      oomKills: 1,
      victims: [{ session: 3, pid: 9064 }],
      killMs: 83.2,
    };
    const line = encodeEvent(squeeze);
    expect(eventProblems(JSON.parse(line) as { type: string })).toBeNull();
    const none = encodeEvent({ ...squeeze, victims: [{ session: null, pid: 9064 }], killMs: null });
    expect(eventProblems(JSON.parse(none) as { type: string })).toBeNull();
    const bad = line.replace('"session":3', '"session":-3');
    expect(eventProblems(JSON.parse(bad) as { type: string })).toMatch(/^memory-pressure\.victims/);
  });

  it("an exec adapter's kill list as the runner journals it is valid; a negative PID is not", () => {
    const procs = [{ pid: 4242, group: true, startTime: '123456' }];
    const line = encodeEvent({ schemaVersion: 1, t: 1, type: 'kill-list', cycle: 2, host: 4000, procs });
    expect(eventProblems(JSON.parse(line) as { type: string })).toBeNull();
    expect(eventProblems(JSON.parse(line.replace('4242', '-4242')) as { type: string })).toMatch(/^kill-list\.procs/);
  });

  it('a fault event as the runner journals it is valid; an unknown kind is not', () => {
    const fault = { cycle: 3, kind: 'power-loss', acknowledgedSeq: 7, acknowledgedStep: 70 } as const;
    const line = encodeEvent({ schemaVersion: 1, t: 1, type: 'fault', ...fault });
    expect(eventProblems(JSON.parse(line) as { type: string })).toBeNull();
    expect(eventProblems(JSON.parse(line.replace('power-loss', 'meteor')) as { type: string })).toMatch(/^fault\.kind/);
  });

  it('a host crash as the crash barrier journals it is valid; a negative spread is not, nor a missing lastBackMs', () => {
    const crash = { cycle: 2, sessions: 8, killed: 8, spreadMs: 0.2, back: 8, lastBackMs: 1234.5 };
    const line = encodeEvent({ schemaVersion: 1, t: 1, type: 'host-crash', ...crash });
    expect(eventProblems(JSON.parse(line) as { type: string })).toBeNull();
    const none = encodeEvent({ schemaVersion: 1, t: 1, type: 'host-crash', ...crash, back: 7, lastBackMs: null });
    expect(eventProblems(JSON.parse(none) as { type: string })).toBeNull();
    expect(eventProblems(JSON.parse(line.replace('0.2', '-0.2')) as { type: string })).toMatch(/^host-crash\.spreadMs/);
    expect(eventProblems(JSON.parse(line.replace(',"lastBackMs":1234.5', '')) as { type: string })).toMatch(
      /^host-crash\.lastBackMs/,
    );
  });

  it('a checkpoint storm as its fault journals it is valid; a negative spread is not, nor a missing pause list', () => {
    const storm = { cycle: 3, sessions: 4, begun: 4, queued: 1, spreadMs: 12.5, durationMs: 80.25, committed: 1 };
    const rest = { torn: 3, failed: 0, pauseMs: [9.5], writeMs: [60.125] };
    const line = encodeEvent({ schemaVersion: 1, t: 1, type: 'checkpoint-storm', ...storm, ...rest });
    expect(eventProblems(JSON.parse(line) as { type: string })).toBeNull();
    const none = { ...storm, begun: 0, spreadMs: null, durationMs: null, committed: 0 };
    const empty = { ...rest, torn: 0, failed: 4, pauseMs: [], writeMs: [] };
    const noBegin = encodeEvent({ schemaVersion: 1, t: 1, type: 'checkpoint-storm', ...none, ...empty });
    expect(eventProblems(JSON.parse(noBegin) as { type: string })).toBeNull();
    expect(eventProblems(JSON.parse(line.replace('12.5', '-12.5')) as { type: string })).toMatch(
      /^checkpoint-storm\.spreadMs/,
    );
    expect(eventProblems(JSON.parse(line.replace(',"pauseMs":[9.5]', '')) as { type: string })).toMatch(
      /^checkpoint-storm\.pauseMs/,
    );
  });

  it('an observation as the runner journals it is valid, and the fast path takes it; a broken part is not', () => {
    const part = (step: number) => ({ step, digest: 'ab12' });
    const obs = observationEvent(4, {
      heartbeat: { step: 40, nonce: 'n2', full: true, fs: part(40), mem: part(40), tool: part(40) },
      restored: { seq: 3, step: 38 },
      killStep: 41,
      nonce: 'n1',
      latestCompleteSeq: null,
    });
    const line = encodeEvent({ schemaVersion: 1, t: 12.5, ...obs });
    expect(eventProblems(JSON.parse(line) as { type: string })).toBeNull();
    const reader = new AnalysisLineReader(new RunAccumulator());
    const take = (text: string): boolean => reader.read(Buffer.from(text), 0, Buffer.byteLength(text));
    expect(take(line)).toBe(true);
    const broken = line.replace('"mem":{"step":40', '"mem":{"step":-40');
    expect(take(broken)).toBe(false);
    expect(eventProblems(JSON.parse(broken) as { type: string })).toBe(
      'observation.mem.step: expected an integer >= 0, got -40',
    );
    const notFlag = line.replace('"full":true', '"full":1');
    expect(take(notFlag)).toBe(false);
    expect(eventProblems(JSON.parse(notFlag) as { type: string })).toBe(
      'observation.full: expected true or false, got 1',
    );
  });

  it('follows: the number rules, Infinity and NaN refused by all', () => {
    expect([1, 2 ** 32 - 1].every((x) => follows(CYCLE_ID, x))).toBe(true);
    expect([0, -1, 1.5, 2 ** 32].some((x) => follows(CYCLE_ID, x))).toBe(false);
    expect([0, 7, Number.MAX_SAFE_INTEGER].every((x) => follows(COUNT, x))).toBe(true);
    expect([-1, 0.5, 2 ** 60].some((x) => follows(COUNT, x))).toBe(false);
    expect([-5, 0, 5].every((x) => follows(STEP_DELTA, x))).toBe(true);
    expect([0, 0.001, 1e300].every((x) => follows(DURATION_MS, x))).toBe(true);
    expect([-0.001, -3].some((x) => follows(DURATION_MS, x))).toBe(false);
    for (const rule of [CYCLE_ID, COUNT, STEP_DELTA, DURATION_MS])
      for (const x of [Infinity, -Infinity, NaN]) expect(follows(rule, x), `${rule.expected} ${x}`).toBe(false);
  });

  it('a run-start with a bad scenario names the nested field', () => {
    const start = parsedLines('process-default')[0] as { type: string; scenario: Record<string, unknown> };
    expect(start.type).toBe('run-start');
    const bad = { ...start, scenario: { ...start.scenario, cycles: -1 } };
    expect(eventProblems(bad)).toMatch(/^run-start\.scenario\.cycles: /);
  });
});
