// The report's "Checkpoint storms" section for a run of several sessions (issue 36): how many storms asked every
// session for a checkpoint at once, the spread of their begins and the storm's duration, what became of the storm
// checkpoints (committed, torn by the kill, failed), and what a storm costs: the storm checkpoints' pause and write
// times beside the ordinary checkpoints' of the same run, each with n. summary.md and index.html draw the same lines.
import type { CheckpointStormSummary, Quantiles, Spread } from '../../analysis/checkpoint-storm-tally.js';
import { fmtMs } from './format.js';

const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;

function spreadText(s: Spread | null, of: string): string {
  return s === null
    ? `${of}: none measured`
    : `${of} p50 ${fmtMs(s.p50)}, max ${fmtMs(s.max)} (n = ${plural(s.n, 'storm')})`;
}

function costText(q: Quantiles): string {
  return q === null ? 'none measured' : `p50 ${fmtMs(q.p50)}, p95 ${fmtMs(q.p95)} (n = ${q.n})`;
}

/** The section's paragraphs as plain text (the first the lead), or null when the run journaled no storm. */
export function checkpointStormLines(c: CheckpointStormSummary | undefined): string[] | null {
  if (c === undefined) return null;
  const took = c.sessions.min === c.sessions.max ? `${c.sessions.max}` : `${c.sessions.min} to ${c.sessions.max}`;
  const k = c.checkpoints;
  const lead = `${plural(c.storms, 'checkpoint storm')}, each asking every session's host for a checkpoint in one loop (${took} sessions a storm), then SIGKILLing each session inside its storm checkpoint and resuming it from its newest complete checkpoint. Storm checkpoints: ${k.begun} begun (${k.queued} after a checkpoint already in flight when asked), ${k.committed} committed before the kill, ${k.torn} torn by it (in flight), ${k.failed} failed.`;
  const timing = `${spreadText(c.spreadMs, 'First to last storm checkpoint begin')}; ${spreadText(c.durationMs, 'first begin to the last commit or kill')}.`;
  const cost = `What a storm costs: storm checkpoints pause ${costText(c.storm.pauseMs)}, write ${costText(c.storm.writeMs)}; the run's ordinary checkpoints pause ${costText(c.ordinary.pauseMs)}, write ${costText(c.ordinary.writeMs)} (measured once, on one host). Only storm checkpoints that committed before their kill are timed: one slower than its kill's delay is torn, not timed, so the storm's figures are a lower bound.`;
  return [lead, timing, cost];
}

/** The section in summary.md (nothing without storms). */
export function checkpointStormMarkdown(c: CheckpointStormSummary | undefined, md: (x: string) => string): string[] {
  const lines = checkpointStormLines(c);
  if (lines === null) return [];
  return ['## Checkpoint storms', '', ...lines.flatMap((l) => [md(l), ''])];
}
