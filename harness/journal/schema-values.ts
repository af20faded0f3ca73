// The value rules a journal schema is built from (schema.ts): numbers that follow a named rule (number-rules.ts),
// closed string sets, text and flags, each with the one-line message a broken line gets.
import { z } from 'zod';
import { follows, type NumberRule } from './number-rules.js';

/** A value as an error message quotes it. */
export function show(x: unknown): string {
  if (x === undefined) return 'nothing (the field is missing)';
  if (typeof x === 'number') return String(x);
  const json = JSON.stringify(x);
  return json.length > 40 ? `${json.slice(0, 40)}...` : json;
}

export const number = (rule: NumberRule) =>
  z.custom<number>((x) => typeof x === 'number' && follows(rule, x), {
    error: (iss) => `expected ${rule.expected}, got ${show(iss.input)}`,
  });
export const numberOrNull = (rule: NumberRule) =>
  z.custom<number | null>((x) => x === null || (typeof x === 'number' && follows(rule, x)), {
    error: (iss) => `expected ${rule.expected} or null, got ${show(iss.input)}`,
  });
export const oneOf = <const T extends readonly string[]>(values: T) =>
  z.custom<T[number]>((x) => typeof x === 'string' && values.includes(x), {
    error: (iss) => `expected one of ${values.join(', ')}, got ${show(iss.input)}`,
  });
export const text = z.string({ error: (iss) => `expected a string, got ${show(iss.input)}` });
export const flag = z.boolean({ error: (iss) => `expected true or false, got ${show(iss.input)}` });
export const finite = z.number(); // finite: zod's own number check rejects Infinity
