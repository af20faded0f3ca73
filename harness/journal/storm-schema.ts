// The checkpoint-storm event's schema (journal/fault-events.ts), built with schema.ts's own number checks so its errors
// read as every other event's; kept here so schema.ts stays one file under the house's length.
import { z } from 'zod';

/** The checkpoint-storm event's schema, from schema.ts's `base` and its number checks. */
export function stormEventSchema<B extends z.ZodRawShape>(
  base: B,
  cycle: z.ZodType<number>,
  count: z.ZodType<number>,
  ms: z.ZodType<number>,
  msOrNull: z.ZodType<number | null>,
) {
  return z.object({
    ...base,
    type: z.literal('checkpoint-storm'),
    cycle,
    sessions: count,
    begun: count,
    queued: count,
    spreadMs: msOrNull,
    durationMs: msOrNull,
    committed: count,
    torn: count,
    failed: count,
    pauseMs: z.array(ms),
    writeMs: z.array(ms),
  });
}
