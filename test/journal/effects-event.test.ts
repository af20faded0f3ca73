// The effects event (issue 34) as the runner journals it: valid, written in the codec's field order, read back by the
// journal reader; a negative count, a missing discipline or an unknown one is refused naming the field.
import { describe, expect, it } from 'vitest';
import { encodeEvent } from '../../harness/journal/codec.js';
import type { EffectCounts, EffectsEvent } from '../../harness/journal/effects-event.js';
import { eventProblems } from '../../harness/journal/schema.js';

const counts = (dup: number): EffectCounts => ({
  emitted: 5,
  first: 3,
  reEmitted: 2,
  duplicates: dup,
  deduplicated: 2 - dup,
  worldAhead: 1,
  lost: 0,
});
const event: EffectsEvent = {
  schemaVersion: 1,
  t: 12.5,
  type: 'effects',
  cycle: 4,
  restoredThrough: 88,
  incarnations: 1,
  disciplines: { 'step-key': counts(0), 'random-key': counts(2), 'no-key': counts(2) },
};
const problems = (line: string): string | null => eventProblems(JSON.parse(line) as { type: string });

describe('effects event', () => {
  it('is valid as the runner journals it, its fields in the codec order', () => {
    const line = encodeEvent(event);
    expect(line.startsWith('{"schemaVersion":1,"t":12.5,"type":"effects","cycle":4,"restoredThrough":88,')).toBe(true);
    expect(problems(line)).toBeNull();
    expect(problems(encodeEvent({ ...event, restoredThrough: null }))).toBeNull();
  });

  it('refuses a negative count, a missing or unknown discipline, naming the field', () => {
    const line = encodeEvent(event);
    expect(problems(line.replace('"lost":0', '"lost":-1'))).toMatch(/^effects\.disciplines\.step-key\.lost: expected/);
    const { 'no-key': _, ...two } = event.disciplines;
    expect(problems(encodeEvent({ ...event, disciplines: two as EffectsEvent['disciplines'] }))).toMatch(
      /^effects\.disciplines\.no-key/,
    );
    expect(problems(line.replace('"incarnations":1', '"incarnations":"one"'))).toMatch(/^effects\.incarnations/);
  });
});
