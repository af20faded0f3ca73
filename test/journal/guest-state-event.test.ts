// The guest-state event (issue 33) as the runner journals it: valid, written in the codec's field order; an unknown
// class, an unknown status or mode, or a missing detail is refused naming the field.
import { describe, expect, it } from 'vitest';
import { encodeEvent } from '../../harness/journal/codec.js';
import type { GuestStateEvent } from '../../harness/journal/guest-state-event.js';
import { eventProblems } from '../../harness/journal/schema.js';

const event: GuestStateEvent = {
  schemaVersion: 1,
  t: 7.25,
  type: 'guest-state',
  cycle: 3,
  mode: 'restarted',
  observations: [
    { class: 'tmp-file', status: 'lost', detail: '/tmp/x: No such file or directory' },
    { class: 'clock-wall', status: 'survives', detail: 'ahead 0.002 s', value: 0.002 },
  ],
};
const problems = (line: string): string | null => eventProblems(JSON.parse(line) as { type: string });

describe('guest-state event', () => {
  it('is valid as the runner journals it, its fields in the codec order', () => {
    const line = encodeEvent(event);
    expect(line.startsWith('{"schemaVersion":1,"t":7.25,"type":"guest-state","cycle":3,"mode":"restarted",')).toBe(
      true,
    );
    expect(problems(line)).toBeNull();
    const unexamined = { ...event, mode: 'unexamined' as const, observations: [], problem: 'the session ended' };
    expect(problems(encodeEvent(unexamined))).toBeNull();
  });

  it('refuses an unknown class, status or mode and a missing detail, naming the field', () => {
    const line = encodeEvent(event);
    expect(problems(line.replace('"tmp-file"', '"tmpfile"'))).toMatch(/^guest-state\.observations\.0\.class: expected/);
    expect(problems(line.replace('"lost"', '"gone"'))).toMatch(/^guest-state\.observations\.0\.status: expected/);
    expect(problems(line.replace('"restarted"', '"guessed"'))).toMatch(/^guest-state\.mode: expected/);
    expect(problems(line.replace(',"detail":"ahead 0.002 s"', ''))).toMatch(/^guest-state\.observations\.1\.detail/);
  });
});
