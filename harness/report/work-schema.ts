// summary.json's `work` (the coding workload at a run's resumes, issue 37; analysis/work-tally.ts).
import { z } from 'zod';

const num = z.number();

export const workSchema = z
  .object({
    resumes: num,
    iterations: z.object({ min: num, p50: num, max: num }),
    failed: num,
    outOfSpace: num.optional(),
  })
  .describe(
    "the coding workload at the resumes: states with its account, their iterations, those whose failures grew, those whose last failure was the guest's disk full",
  );
