// The named rules a journal line's numeric fields follow (ids, counts, durations, percentages): the zod schemas and
// the analysis fast path check the same rules, so a line one accepts the other accepts. A writer rounds a number before
// it journals it with core/round.ts (times and durations: roundMs, to the microsecond).

/** A rule for a numeric field: an integer or any finite number, within [min, max]. */
export interface NumberRule {
  integer: boolean;
  min: number;
  max: number;
  /** What the rule asks for, as an error message says it ("an integer >= 1"). */
  expected: string;
}

/** A cycle id: the runner numbers cycles from 1; analysis keys them below 2^32. */
export const CYCLE_ID: NumberRule = { integer: true, min: 1, max: 2 ** 32 - 1, expected: 'an integer >= 1' };
/** A session index (scenario sessions: 1..64; session 0 is written without the field, but may carry it). */
export const SESSION_INDEX: NumberRule = { integer: true, min: 0, max: 63, expected: 'an integer from 0 to 63' };
/** A count, step, sequence number, byte size or pid. */
export const COUNT: NumberRule = { integer: true, min: 0, max: Number.MAX_SAFE_INTEGER, expected: 'an integer >= 0' };
/** A count of at least one (a shard count). */
export const POSITIVE: NumberRule = { ...COUNT, min: 1, expected: 'an integer >= 1' };
/** A difference of steps (lost work is negative when a resume came back ahead of the kill). */
export const STEP_DELTA: NumberRule = { ...COUNT, min: -Number.MAX_SAFE_INTEGER, expected: 'an integer' };
/** A time or duration in ms (never negative, never Infinity: 1e999 parses as Infinity). */
export const DURATION_MS: NumberRule = {
  integer: false,
  min: 0,
  max: Number.MAX_VALUE,
  expected: 'a finite number >= 0',
};

/** A share of the machine's CPU time, in percent. */
export const PERCENT: NumberRule = { integer: false, min: 0, max: 100, expected: 'a number from 0 to 100' };

/** Whether `x` follows `rule`; false for NaN and the infinities. Cheap enough for every field of every line. */
export function follows(rule: NumberRule, x: number): boolean {
  return x >= rule.min && x <= rule.max && (!rule.integer || Number.isInteger(x));
}
