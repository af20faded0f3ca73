// summary.json's `checkpointStorms` (the checkpoint storms of a run of several sessions, issue 36): storm checkpoints
// committed, torn and failed, the begins' spread and the storm's duration, and the storm checkpoints' pause and write
// times beside the ordinary checkpoints' (analysis/checkpoint-storm-tally.ts CheckpointStormSummary).
import { z } from 'zod';

const num = z.number();
const spread = z.object({ n: num, p50: num, max: num }).nullable();
const quantiles = z.object({ n: num, p50: num, p95: num }).nullable();
const cost = z.object({ pauseMs: quantiles, writeMs: quantiles });

export const checkpointStormsSchema = z
  .object({
    storms: num,
    sessions: z.object({ min: num, max: num }),
    checkpoints: z.object({ begun: num, queued: num, committed: num, torn: num, failed: num }),
    spreadMs: spread,
    durationMs: spread,
    storm: cost,
    ordinary: cost,
  })
  .describe(
    'checkpoint storms of a run of several sessions: every session asked for a checkpoint at once, then killed',
  );
