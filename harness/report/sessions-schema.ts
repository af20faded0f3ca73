// summary.json's `sessions` (a run of several sessions at once, issue 36): each session's tallies and the dedup
// pooled over the shared store beside the sessions' mean (analysis/summary.ts SessionsSummary).
import { z } from 'zod';

const num = z.number();
const nullableNum = z.number().nullable();

export const sessionsSchema = z.object({
  count: num,
  rows: z.array(
    z.object({
      session: num,
      seed: num,
      cycles: z.object({ total: num, resumed: num, failed: num, indeterminate: num }),
      killResume: z.object({ successes: num, trials: num, wilson95: z.tuple([num, num]).nullable() }),
      violations: num,
      violationSamples: z.array(z.string()),
      dedup: z.object({ logicalBytes: num, storedBytes: num, ratio: nullableNum }),
    }),
  ),
  dedup: z.object({
    pooledRatio: nullableNum,
    apartBytes: nullableNum.describe("stored bytes stores of the sessions' own would hold (null: not recorded)"),
    apartRatio: nullableNum.describe('logical bytes over apartBytes: the dedup without sharing'),
    sharedSaving: nullableNum.describe('apartBytes over the bytes the shared store holds: what sharing saved'),
    meanSessionRatio: nullableNum,
  }),
});
