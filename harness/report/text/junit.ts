// JUnit XML of a judged run, for CI systems that read test reports: one testcase per gate. A failed gate is a
// <failure> whose message carries the measured value, its 95% interval, the figure judged and the threshold with
// units; an insufficient or inconclusive gate is <skipped> with the same figures (not a pass, not a failure of the
// system under test either: the run's exit code 2 says "not known"). A run with adapter faults gets one more testcase,
// an <error> naming them (the adapter broke the protocol: exit 5). A run measured on a saturated machine says so in
// the suite's properties and <system-out> (load, steal, cores), and each timing gate's message carries the figures
// (a fail not trusted there is <skipped>, "inconclusive (saturated)"). Every string goes through escapeXml. Times: the
// suite's is the run's span (summary.elapsedMs, in seconds; 0 when the journal records none); a gate's testcase has
// time="0", as a gate is judged on the whole run's samples after it ended and has no duration of its own.
import type { TimingJudgement } from '../../gates/judge.js';
import type { GateResult } from '../../gates/types.js';
import {
  isSaturatedInconclusive,
  type RunVerdict,
  SATURATED_WORD,
  VERDICT_WORD,
  type Verdict,
} from '../../gates/verdict.js';
import type { Summary } from '../../analysis/summary.js';
import { escapeXml } from '../escape.js';
import { fmtGateInterval, fmtGateJudged, fmtGateObserved, fmtGateThreshold } from './gate-format.js';

/** What the XML describes: the run's summary, its judged gates and overall verdict, and where the report went. */
export interface JunitInput {
  summary: Pick<
    Summary,
    'runId' | 'scenario' | 'target' | 'seed' | 'seedKey' | 'startedAt' | 'cycles' | 'adapterFaults' | 'elapsedMs'
  >;
  gates: readonly GateResult[];
  verdict: RunVerdict;
  reportDir: string | null;
  /** The machine's saturation and what it did to the timing gates (judge.ts). */
  timing: TimingJudgement;
}

/** One line of figures for a gate: "measured ..., 95% interval ..., judged on ..., threshold ..., n 20 (min 59)". */
export function gateFigures(g: GateResult): string {
  return `measured ${fmtGateObserved(g)}, 95% interval ${fmtGateInterval(g)}, judged on ${fmtGateJudged(g)}, threshold ${fmtGateThreshold(g)}, n ${g.n} (min ${g.minN})${g.note ? `; ${g.note}` : ''}`;
}

function testcase(g: GateResult): string {
  const name = escapeXml(`gate ${String(g.id).padStart(2, '0')} ${g.name}: ${g.title}`);
  const open = `    <testcase classname="keepstate-soak.gates" name="${name}" time="0"`;
  const word = isSaturatedInconclusive(g) ? SATURATED_WORD : VERDICT_WORD[g.verdict];
  const machine = g.saturated ? `; measured on a ${g.saturated.reason}` : '';
  if (g.verdict === 'pass')
    return machine === ''
      ? `${open}/>`
      : `${open}>\n      <system-out>${escapeXml(`pass${machine}`)}</system-out>\n    </testcase>`;
  const message = escapeXml(`${word}: ${gateFigures(g)}${machine}`);
  const body = escapeXml(`${g.title}\n${gateFigures(g)}${g.description ? `\n${g.description}` : ''}`);
  const inner =
    g.verdict === 'fail'
      ? `<failure type="fail" message="${message}">${body}</failure>`
      : `<skipped message="${message}"/>`;
  return `${open}>\n      ${inner}\n    </testcase>`;
}

/** The testcase of a run's adapter faults: an <error> (not a gate's failure) with their count and the first; null: none. */
function adapterFaultCase(faults: Summary['adapterFaults']): string | null {
  if (faults === undefined || faults.count === 0) return null;
  const message = escapeXml(
    `${faults.count} adapter fault${faults.count === 1 ? '' : 's'}; the first: ${faults.samples[0] ?? ''}`,
  );
  const body = escapeXml(faults.samples.join('\n'));
  return `    <testcase classname="keepstate-soak.adapter" name="exec adapter keeps the target protocol" time="0">\n      <error type="adapter-fault" message="${message}">${body}</error>\n    </testcase>`;
}

/** The suite's properties on the machine: saturated or not, the load the rule read, strict timing. */
function machineProps(t: TimingJudgement): Array<[string, string]> {
  const load: Array<[string, string]> =
    t.load === null
      ? []
      : [
          ['load1P50', String(t.load.load1P50)],
          ['stealPctP50', String(t.load.stealPctP50)],
          ['cores', String(t.load.cores)],
        ];
  return [['machineSaturated', String(t.saturated)], ...load, ['strictTiming', String(t.strict)]];
}

/** The JUnit XML document (one <testsuite> holding one <testcase> per gate, sorted by gate number). */
export function renderJunit(input: JunitInput): string {
  const { summary: s, verdict } = input;
  const gates = [...input.gates].sort((a, b) => a.id - b.id);
  const count = (v: Verdict): number => gates.filter((g) => g.verdict === v).length;
  const skipped = count('insufficient') + count('inconclusive');
  const props: Array<[string, string]> = [
    ['verdict', verdict],
    ['runId', s.runId],
    ['scenario', s.scenario],
    ['target', s.target],
    ['seed', String(s.seed)],
    ...(s.seedKey !== undefined ? [['seedKey', s.seedKey] as [string, string]] : []),
    ['cycles', String(s.cycles.total)],
    ...(input.reportDir !== null ? [['reportDir', input.reportDir] as [string, string]] : []),
    ...machineProps(input.timing),
  ];
  const suite = escapeXml(`soak gates: ${s.scenario} (${s.runId})`);
  const faults = adapterFaultCase(s.adapterFaults);
  const errors = faults === null ? 0 : 1;
  const time = ((s.elapsedMs ?? 0) / 1000).toFixed(3);
  const attrs = `tests="${gates.length + errors}" failures="${count('fail')}" errors="${errors}" skipped="${skipped}" time="${time}"`;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="keepstate-soak" ${attrs}>`,
    `  <testsuite name="${suite}" ${attrs} timestamp="${escapeXml(s.startedAt)}">`,
    '    <properties>',
    ...props.map(([k, v]) => `      <property name="${escapeXml(k)}" value="${escapeXml(v)}"/>`),
    '    </properties>',
    ...gates.map(testcase),
    ...(faults === null ? [] : [faults]),
    ...(input.timing.warning === null
      ? []
      : [`    <system-out>${escapeXml(`warning: ${input.timing.warning}`)}</system-out>`]),
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n');
}
