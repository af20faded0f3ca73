// The memory-pressure event's schema (journal/fault-events.ts MemoryPressureEvent), from the value rules every event's
// schema uses, so its errors read as theirs; kept here so schema.ts stays one file under the house's length.
import { z } from 'zod';
import { COUNT, CYCLE_ID, DURATION_MS, SESSION_INDEX } from './number-rules.js';
import { number, numberOrNull } from './schema-values.js';

/** The memory-pressure event's schema, from schema.ts's `base`. */
export function memoryPressureEventSchema<B extends z.ZodRawShape>(base: B) {
  return z.object({
    ...base,
    type: z.literal('memory-pressure'),
    cycle: number(CYCLE_ID),
    sessions: number(COUNT),
    usageBytes: number(COUNT),
    limitBytes: number(COUNT),
    oomKills: number(COUNT),
    victims: z.array(z.object({ session: numberOrNull(SESSION_INDEX), pid: number(COUNT) })),
    killMs: numberOrNull(DURATION_MS),
  });
}
