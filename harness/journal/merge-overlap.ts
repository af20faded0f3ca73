// Which sources of a merge overlap, so that merging them would count the same cycles twice: the same folder, the same
// run, the same shard of one seeded scenario, or cycles of one seeded scenario that both hold (a cycle's kill plan is
// a pure function of (seed, cycle)). Refused unless forced; a forced merge records why. Pure.
import { InputError } from '../core/errors.js';
import { type Shard, shardsMeet } from '../scenario/shard.js';
import type { RunStartEvent, SourceRun } from './events.js';

/** What the plan needs of one source: its run-start and the distinct ids of its cycle-start events. */
export interface MergeInput {
  start: RunStartEvent | undefined;
  cycleIds: ReadonlySet<number>;
  /** Distinct (session, cycle) pairs of its cycle-start events (a run of several sessions; absent: cycleIds.size). */
  sessionCycles?: number;
  /** The source as the user named it (errors quote it). */
  source: string;
  /** The source folder with every symlink resolved, when it is on disk: the same folder twice is caught by it. */
  realPath?: string;
  /** How its last runner ended ('unknown': no run-end; absent: not gathered). */
  status?: SourceRun['status'];
  /** Its store as its last run-end recorded it (absent: none recorded). */
  store?: SourceRun['store'];
}

/** The run ids a run-start stands for: a merged run stands for every run it combines. */
export function constituents(start: RunStartEvent): readonly string[] {
  return start.mergedFrom ?? [start.runId];
}

/** What a source's cycles were planned from: the same (scenario, target, seed, cycle) is the same kill plan. */
interface Plan {
  scenario: string;
  target: string;
  seed: number;
  shard: Shard;
  /** Its cycle ids (a run), or null (a merged run: its ids were shifted, only its shard says which it holds). */
  ids: ReadonlySet<number> | null;
  ran: boolean;
}

const UNSHARDED = { index: 0, count: 1 };

/** The plans of a source: a run's own, or each source run of a merged run (on the merged run's scenario). */
function plansOf(input: MergeInput, start: RunStartEvent): Plan[] {
  const [scenario, target] = [start.scenario.name, start.scenario.target];
  if (start.sources)
    return start.sources.map((s) => ({
      scenario,
      target,
      seed: s.seed,
      shard: s.shard ?? UNSHARDED,
      ids: null,
      ran: s.cycles > 0,
    }));
  const ids = start.mergedFrom ? null : input.cycleIds; // an older merge without sources: only its seed is known
  return [
    { scenario, target, seed: start.scenario.seed, shard: start.shard ?? UNSHARDED, ids, ran: input.cycleIds.size > 0 },
  ];
}

/** What plans a and b both hold: "both ran cycle 1 (and 5 more)", or null when no cycle can be in both. */
function bothHold(a: Plan, b: Plan): string | null {
  if (!a.ids || !b.ids) return shardsMeet(a.shard, b.shard) ? 'may both hold the same cycles' : null;
  const [small, big] = a.ids.size <= b.ids.size ? [a.ids, b.ids] : [b.ids, a.ids];
  let first: number | null = null;
  let shared = 0;
  for (const id of small)
    if (big.has(id)) {
      shared++;
      if (first === null || id < first) first = id;
    }
  return first === null ? null : `both ran cycle ${first}${shared > 1 ? ` (and ${shared - 1} more)` : ''}`;
}

/** Why plans a and b hold the same cycle of the same kill plan (null: they cannot). */
function samePlan(a: Plan, b: Plan): string | null {
  if (a.scenario !== b.scenario || a.target !== b.target || a.seed !== b.seed || !a.ran || !b.ran) return null;
  const both = bothHold(a, b);
  if (both === null) return null;
  const split = a.shard.count === 1 && b.shard.count === 1 ? ' with no shard split' : '';
  return `are both runs of scenario ${a.scenario} (target ${a.target}) with seed ${a.seed}${split} and ${both}: a cycle's kill plan is a pure function of (seed, cycle), so it would count twice`;
}

/** Why sources a and b overlap (the same cycles would count twice), or null when they are distinct runs. */
function overlap(a: MergeInput, sa: RunStartEvent, b: MergeInput, sb: RunStartEvent): string | null {
  if (a.realPath !== undefined && a.realPath === b.realPath) return 'are the same run folder';
  const ids = new Set(constituents(sa));
  const shared = constituents(sb).find((id) => ids.has(id));
  if (shared !== undefined) return `both hold run ${shared}`;
  if (
    sa.shard &&
    sb.shard &&
    sa.shard.index === sb.shard.index &&
    sa.shard.count === sb.shard.count &&
    sa.scenario.seed === sb.scenario.seed &&
    sa.scenario.name === sb.scenario.name
  )
    return `are both shard ${sa.shard.index + 1}/${sa.shard.count} of scenario ${sa.scenario.name} with seed ${sa.scenario.seed} (a retried shard?)`;
  for (const pa of plansOf(a, sa))
    for (const pb of plansOf(b, sb)) {
      const why = samePlan(pa, pb);
      if (why !== null) return why;
    }
  return null;
}

/**
 * Every pair of sources that overlap: the same folder (however it is named: relative, absolute, through a symlink such
 * as `latest`), the same run id (a copy; a merged run counts as the runs it combines), the same shard of the same
 * seeded scenario twice, or cycles of the same seeded scenario both hold (no shard split, or shards that meet).
 * Merging them would count their cycles twice: refused (InputError naming the first pair) unless `force`; returns why
 * for each pair, by run id.
 */
export function overlaps(inputs: readonly MergeInput[], starts: readonly RunStartEvent[], force: boolean): string[] {
  const found: string[] = [];
  for (let j = 1; j < inputs.length; j++)
    for (let i = 0; i < j; i++) {
      const [a, b] = [inputs[i]!, inputs[j]!];
      const why = overlap(a, starts[i]!, b, starts[j]!);
      if (why === null) continue;
      const where = a.realPath !== undefined && a.realPath === b.realPath ? ` (${a.realPath})` : '';
      if (!force)
        throw new InputError(
          `merge: ${a.source} and ${b.source} ${why}${where}; merging them would count the same cycles twice (pass each run once, or --force to merge them anyway, recorded in the merged run)`,
        );
      found.push(`runs ${starts[i]!.runId} and ${starts[j]!.runId} ${why}`); // run ids, not paths: it goes into reports
    }
  return found;
}
