// The effects event's schema (journal/effects-event.ts), built with schema.ts's own number checks so its errors read
// as every other event's; kept here so schema.ts stays one file under the house's length.
import { z } from 'zod';
import { EFFECT_DISCIPLINES } from './effects-event.js';

/** The effects event's schema, from schema.ts's `base` and its COUNT checks (`count`, `countOrNull`). */
export function effectsEventSchema<B extends z.ZodRawShape>(
  base: B,
  count: z.ZodType<number>,
  countOrNull: z.ZodType<number | null>,
) {
  const counts = z.object({
    emitted: count,
    first: count,
    reEmitted: count,
    duplicates: count,
    deduplicated: count,
    worldAhead: count,
    lost: count,
  });
  const [a, b, c] = EFFECT_DISCIPLINES;
  return z.object({
    ...base,
    type: z.literal('effects'),
    cycle: count,
    restoredThrough: countOrNull,
    incarnations: count,
    disciplines: z.object({ [a]: counts, [b]: counts, [c]: counts }),
    clone: z.literal(true).optional(),
  });
}
