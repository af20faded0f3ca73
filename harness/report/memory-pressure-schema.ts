// summary.json's `memoryPressure` (the memory squeezes of a run, issue 36): how many, in how many the OOM killer
// fired, its victims by session, and the first limit to the kill (analysis/memory-pressure-tally.ts).
import { z } from 'zod';

const num = z.number();

export const memoryPressureSchema = z
  .object({
    squeezes: num,
    sessions: z.object({ min: num, max: num }),
    fired: num,
    victims: num,
    bySession: z.record(z.string(), num),
    killMs: z.object({ n: num, p50: num, p95: num, max: num }).nullable(),
  })
  .describe("memory squeezes: the sessions' hosts in one memory cgroup until the kernel's OOM killer picked a victim");
