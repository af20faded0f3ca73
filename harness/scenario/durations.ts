// Time values of a scenario: each within a sane range of its own and never past what a Node timer can wait
// (TIMER_MAX_MS: a longer setTimeout fires at once), with a message that says the bound; zod names the field.
import { z } from 'zod';
import { TIMER_MAX_MS } from '../core/clock.js';

/** An hour: the bound of every wait on a host and of every kill delay (a soak waits seconds, not hours). */
export const HOUR_MS = 3_600_000;

/** `ms` in words for a message: "3600000 ms (1 h)". */
function spelled(ms: number): string {
  const units: [number, string][] = [
    [86_400_000, 'd'],
    [3_600_000, 'h'],
    [60_000, 'min'],
    [1000, 's'],
  ];
  const unit = units.find(([u]) => ms >= u && ms % u === 0);
  return unit ? `${ms} ms (${ms / unit[0]} ${unit[1]})` : `${ms} ms`;
}

/** A duration in ms, > 0 (`positive`, the default) or >= 0, at most `max` (itself within a timer's range). */
export function durationMs(max: number, opts: { positive?: boolean; int?: boolean } = {}): z.ZodNumber {
  if (max > TIMER_MAX_MS) throw new RangeError(`durationMs: ${max} is past a Node timer's range`);
  let n = z.number();
  if (opts.int === true) n = n.int();
  n = opts.positive === false ? n.nonnegative() : n.positive();
  return n.max(max, { error: `must be at most ${spelled(max)}` });
}

/** A duration in seconds, >= 0, at most `maxS`; in ms still within a timer's range. */
export function durationS(maxS: number): z.ZodNumber {
  if (maxS * 1000 > TIMER_MAX_MS) throw new RangeError(`durationS: ${maxS} s is past a Node timer's range`);
  return z
    .number()
    .nonnegative()
    .max(maxS, { error: `must be at most ${maxS} s${spelled(maxS * 1000).replace(/^\d+ ms/, '')}` });
}

/** A [min, max] pair of ms, each >= 0 and at most `max`, min <= max. */
export function msRange(max: number): z.ZodType<[number, number]> {
  const one = durationMs(max, { positive: false });
  return z.tuple([one, one]).refine(([lo, hi]) => lo <= hi, { error: 'expected [min, max] with min <= max' });
}
