// The story a report leads with: the gates that did not pass (fail, then inconclusive, then insufficient) and what to
// do next about each: the cycles to read, `soak check` on the run, how many more cycles a short run needs. Plain
// text and commands; the HTML page and summary.md render them. Pure.
import type { CycleTable, Summary } from '../analysis/summary.js';
import type { GateResult } from '../gates/types.js';
import type { VerdictLevel } from '../gates/verdict.js';
import { fmtMs, fmtNum } from './text/format.js';

/** A step's text: plain words, and commands a reader can paste (rendered as code). */
export type StepPart = string | { code: string };

/** One thing to do next, about the gates it names (none: about the whole run). */
export interface NextStep {
  gates: number[];
  parts: StepPart[];
}

/** Verdicts the first screen tells, most severe first (the order of the verdict lattice, gates/verdict.ts). */
const TOLD = ['fail', 'inconclusive', 'insufficient'] as const;

/** The gates that did not pass, fail first, then inconclusive, then insufficient; by id within each. */
export function storyGates(gates: readonly GateResult[]): GateResult[] {
  return TOLD.flatMap((v) => gates.filter((g) => g.verdict === v).sort((a, b) => a.id - b.id));
}

/** Metrics judged per cycle whose failed cycles are the ones to read; a torn-write metric reads those killed mid-write. */
const FAILED_CYCLE_METRICS = new Set(['killResume', 'violations', 'noncePreserved', 'lossBeyondCheckpoint']);
const TORN_METRICS = new Set(['tornCheckpoint', 'tornCheckpointUnsafe']);
const DOWNTIME_METRICS = new Set(['downtimeMs', 'restoreMs']);
/** How many cycles a step names before "and N more". */
const LIST_MAX = 8;

function cycleList(ids: readonly number[]): string {
  const shown = ids.slice(0, LIST_MAX).join(', ');
  return ids.length > LIST_MAX ? `${shown} and ${ids.length - LIST_MAX} more` : shown;
}

/** The cycles to read for a failed gate as a clause ("cycles 7, 31 (failed)"), and whether they are failed cycles (null: none stands out). */
function cyclesToRead(g: GateResult, cycles: CycleTable): { clause: string; failedCycles: boolean } | null {
  const metric = g.metric.split('.')[0] ?? ''; // a metric name, or a summary path under it
  const failed = (torn: boolean): number[] => {
    const out: number[] = [];
    for (let i = 0; i < cycles.length; i++)
      if (cycles.outcome[i] === 'fail' && (!torn || cycles.observedPhase[i] === 'checkpoint'))
        out.push(cycles.cycle[i]!);
    return out;
  };
  if (FAILED_CYCLE_METRICS.has(metric) || TORN_METRICS.has(metric)) {
    const ids = failed(TORN_METRICS.has(metric));
    if (ids.length === 0) return null;
    const why = TORN_METRICS.has(metric) ? 'failed, killed during a checkpoint write' : 'failed';
    return { clause: `cycle${ids.length === 1 ? '' : 's'} ${cycleList(ids)} (${why})`, failedCycles: true };
  }
  if (!DOWNTIME_METRICS.has(metric)) return null;
  const slow: Array<[number, number]> = [];
  for (let i = 0; i < cycles.length; i++) {
    const d = cycles.downtimeMs[i]!;
    if (!Number.isNaN(d)) slow.push([cycles.cycle[i]!, d]);
  }
  slow.sort((a, b) => b[1] - a[1] || a[0] - b[0]);
  const top = slow.slice(0, 3);
  if (top.length === 0) return null;
  const list = top.map(([c, d]) => `${c} (${fmtMs(d)})`).join(', ');
  return { clause: `the slowest cycle${top.length === 1 ? '' : 's'}: ${list}`, failedCycles: false };
}

function gateNames(gates: readonly GateResult[]): string {
  const names = gates.map((g) => `${g.id} (${g.title})`);
  const list = names.length <= 1 ? names.join('') : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;
  return `Gate${gates.length === 1 ? '' : 's'} ${list}`;
}

/** Steps for failed gates: gates whose cycles to read are the same share one step. */
function failSteps(failed: readonly GateResult[], cycles: CycleTable): NextStep[] {
  const byClause = new Map<string, GateResult[]>();
  for (const g of failed) {
    const clause = cyclesToRead(g, cycles)?.clause ?? '';
    byClause.set(clause, [...(byClause.get(clause) ?? []), g]);
  }
  return [...byClause].map(([clause, gates]) => ({
    gates: gates.map((g) => g.id),
    parts: [
      clause === ''
        ? `${gateNames(gates)} failed on a figure of the whole run, not of one cycle: see ${gates.length === 1 ? 'its' : 'their'} chart below and the tested environment.`
        : `${gateNames(gates)} failed: read ${clause} in cycles.csv and the run folder's hosts.log.`,
    ],
  }));
}

/** Gates names without the leading "Gate(s)": "6 (Kill-and-resume success)". */
function gateIds(gates: readonly GateResult[]): string {
  return gateNames(gates).replace(/^Gates? /, '');
}

/**
 * Steps for insufficient gates: one for every gate short of its minimum n that grows with the cycles (how many more
 * cycles, at this run's samples per cycle, give each gate its minimum), one per boot-time gate (boot samples are
 * booted before the cycles) and one per gate with enough samples yet no verdict (its note says why).
 */
function insufficientSteps(told: readonly GateResult[], s: Summary, run: string): NextStep[] {
  const steps: NextStep[] = [];
  const perCycle: Array<{ g: GateResult; more: number }> = [];
  for (const g of told) {
    const missing = g.minN - g.n;
    if (missing <= 0 || g.n === 0 || s.cycles.total === 0)
      steps.push({ gates: [g.id], parts: [`${gateNames([g])} has no verdict${g.note === '' ? '.' : `: ${g.note}.`}`] });
    else if (g.metric.split('.')[0] === 'bootMs')
      steps.push({
        gates: [g.id],
        parts: [
          `${gateNames([g])} has n = ${g.n} of the ${g.minN} it needs: boot samples are booted before the cycles, so raise the scenario's bootSamples by ${missing} (or report more runs together).`,
        ],
      });
    else perCycle.push({ g, more: Math.ceil(missing / (g.n / s.cycles.total)) });
  }
  if (perCycle.length === 0) return steps;
  const most = perCycle.reduce((a, b) => (b.more > a.more ? b : a));
  const rate = fmtNum(most.g.n / s.cycles.total);
  const why =
    perCycle.length === 1
      ? `${gateNames([most.g])} has n = ${most.g.n} of the ${most.g.minN} it needs: about ${most.more} more cycles at this run's ${rate} per cycle`
      : `Gates ${gateIds(perCycle.map((x) => x.g))} are below their minimum n: about ${most.more} more cycles give each its minimum at this run's rates (gate ${most.g.id} needs the most: n = ${most.g.n} of ${most.g.minN}, ${rate} per cycle)`;
  return [
    {
      gates: perCycle.map((x) => x.g.id),
      parts: [
        `${why}; run them and report both runs as one sample: `,
        { code: `soak report ${run} runs/<next run>` },
        '.',
      ],
    },
    ...steps,
  ];
}

/** What a reader of this report should do next, most severe first. `cycles` is the run's cycle table. */
export function nextSteps(
  s: Summary,
  gates: readonly GateResult[],
  level: VerdictLevel,
  cycles: CycleTable,
): NextStep[] {
  const run = `runs/${s.runId}`;
  const check: NextStep = {
    gates: [],
    parts: [
      'Re-run the checker over the journaled observations: ',
      { code: `soak check ${run}` },
      ' (exit 1: the violations stand; a verdict that changes points at the checker, not the system under test).',
    ],
  };
  if (s.negativeControl === true) {
    if (level === 'pass')
      return [
        { gates: [], parts: ['Nothing: this negative control was caught, so the checker can fail when it should.'] },
      ];
    return [
      {
        gates: [],
        parts: ['The checker missed the planted fault: do not trust its passes for this fault until it is found.'],
      },
      check,
    ];
  }
  const steps: NextStep[] = [];
  if (level === 'adapter-fault')
    steps.push({
      gates: [],
      parts: [
        'The exec adapter broke the target protocol, so this run measured the adapter: run the conformance kit on it, ',
        { code: 'soak target check <adapter>' },
        ', fix it, then run again.',
      ],
    });
  const told = storyGates(gates);
  const failed = told.filter((g) => g.verdict === 'fail');
  steps.push(...failSteps(failed, cycles));
  if (s.violations > 0 || failed.some((g) => cyclesToRead(g, cycles)?.failedCycles === true)) steps.push(check);
  for (const g of told.filter((x) => x.verdict === 'inconclusive'))
    steps.push({
      gates: [g.id],
      parts: [
        `${gateNames([g])} is inconclusive at 95%: its point estimate and its 95% bounds sit on opposite sides of the bar. More cycles narrow the bounds: run more and report the runs together, `,
        { code: `soak report ${run} runs/<next run>` },
        '.',
      ],
    });
  steps.push(
    ...insufficientSteps(
      told.filter((x) => x.verdict === 'insufficient'),
      s,
      run,
    ),
  );
  if (s.cycles.indeterminate > 0)
    steps.push({
      gates: [],
      parts: [
        `${s.cycles.indeterminate} cycle${s.cycles.indeterminate === 1 ? ' was' : 's were'} indeterminate (the harness or the machine, not the system under test): see "Indeterminate cycles" below; they count in no rate.`,
      ],
    });
  if (steps.length === 0)
    steps.push({
      gates: [],
      parts: [
        level === 'pass'
          ? `Nothing blocks sign-off on these ${gates.length} gates. Read the scope and limitations below before quoting a figure.`
          : 'No gate was judged: this report states measurements only.',
      ],
    });
  return steps;
}
