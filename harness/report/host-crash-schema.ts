// summary.json's `hostCrashes` (the host crashes of a run of several sessions, issue 36): how many took, killed and
// brought back every session, and the crash to the last session back (analysis/host-crash-tally.ts HostCrashSummary).
import { z } from 'zod';

const num = z.number();

export const hostCrashesSchema = z
  .object({
    crashes: num,
    sessions: z.object({ min: num, max: num }),
    everyKilled: num,
    everyBack: num,
    spreadMaxMs: num,
    lastBackMs: z.object({ n: num, p50: num, p95: num, max: num }).nullable(),
    incomplete: z.array(z.string()),
  })
  .describe('host crashes of a run of several sessions: every session SIGKILLed in one loop, then all resumed');
