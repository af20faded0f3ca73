// The checkpoint-storm event's schema (journal/fault-events.ts), from the value rules every event's schema uses, so its
// errors read as theirs; kept here so schema.ts stays one file under the house's length.
import { z } from 'zod';
import { COUNT, CYCLE_ID, DURATION_MS } from './number-rules.js';
import { number, numberOrNull } from './schema-values.js';

/** The checkpoint-storm event's schema, from schema.ts's `base`. */
export function stormEventSchema<B extends z.ZodRawShape>(base: B) {
  const count = number(COUNT);
  const msOrNull = numberOrNull(DURATION_MS);
  return z.object({
    ...base,
    type: z.literal('checkpoint-storm'),
    cycle: number(CYCLE_ID),
    sessions: count,
    begun: count,
    queued: count,
    spreadMs: msOrNull,
    durationMs: msOrNull,
    committed: count,
    torn: count,
    failed: count,
    pauseMs: z.array(number(DURATION_MS)),
    writeMs: z.array(number(DURATION_MS)),
  });
}
