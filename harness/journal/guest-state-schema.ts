// The guest-state event's schema (journal/guest-state-event.ts), from schema.ts's own value rules so its errors read
// as every other event's; kept here so schema.ts stays one file under the house's length.
import { z } from 'zod';
import { OBSERVATION_STATUSES, STATE_CLASS_IDS } from '../check/survival.js';
import { GUEST_STATE_MODES } from './guest-state-event.js';

/** The guest-state event's schema, from schema.ts's `base`, its `oneOf`, a COUNT check, text and a finite number. */
export function guestStateEventSchema<B extends z.ZodRawShape>(
  base: B,
  oneOf: <const T extends readonly string[]>(values: T) => z.ZodType<T[number]>,
  count: z.ZodType<number>,
  text: z.ZodType<string>,
  finite: z.ZodType<number>,
) {
  const observation = z.object({
    class: oneOf(STATE_CLASS_IDS),
    status: oneOf(OBSERVATION_STATUSES),
    detail: text,
    value: finite.optional(),
  });
  return z.object({
    ...base,
    type: z.literal('guest-state'),
    cycle: count,
    mode: oneOf(GUEST_STATE_MODES),
    observations: z.array(observation),
    problem: text.optional(),
  });
}
