// `soak target check <scenario-or-adapter> --matrix [--trials N]`: the survival matrix of guest state across real
// kill/resume trials (conformance/matrix.ts), as a table or --json (schemas/target-matrix.schema.json).
import type { MatrixTrial } from '../conformance/matrix.js';
import type { ConformanceTarget } from '../conformance/session.js';
import { type MatrixRow, tallyMatrix } from '../check/survival-matrix.js';
import { CLOCK_AFTER_S } from '../check/survival.js';
import { EXIT, InputError } from '../core/errors.js';
import { escapedJson } from '../core/visible.js';
import { fmtPctInterval } from '../report/text/format.js';

/** The targets whose sessions can run the probe (targetOptions.probe: exec adapters through their capability). */
const PROBED_TARGETS = ['process', 'microvm', 'exec'];

/** `--clock-after 1,5,30`: the later wall-clock readings, seconds after the resume ('' or 'none': none). */
export function parseClockAfter(text: string): number[] {
  if (text === '' || text === 'none') return [];
  const allowed: readonly number[] = CLOCK_AFTER_S;
  const out = text.split(',').map((w) => Number(w.trim()));
  const bad = out.find((s, i) => !allowed.includes(s) || out.indexOf(s) !== i);
  if (bad !== undefined)
    throw new InputError(
      `--clock-after: ${JSON.stringify(text)}: expected distinct seconds from ${CLOCK_AFTER_S.join(', ')} (e.g. 1,5,30), or none`,
    );
  return out.sort((a, b) => a - b);
}

/** The target with the probe binary in its options, or InputError (exit 3) for a target that cannot run it yet. */
export function withProbe(t: ConformanceTarget, binary: string, clockAfter: number[] = []): ConformanceTarget {
  if (!PROBED_TARGETS.includes(t.target))
    throw new InputError(
      `--matrix: target "${t.target}" cannot run the guest-state probe yet (it runs on: ${PROBED_TARGETS.join(', ')}; docs/what-survives.md)`,
    );
  if (t.target === 'microvm' && t.targetOptions.fresh === 'template')
    throw new InputError(
      '--matrix: the microvm target probes only with targetOptions.fresh: cold (a template boots first)',
    );
  // exec adapters: the protocol has one examination per resume, no later reading (the matrix says not-applicable)
  const later = t.target !== 'exec' && clockAfter.length > 0 ? { probeClockAfter: clockAfter } : {};
  return { ...t, targetOptions: { ...t.targetOptions, probe: binary, ...later } };
}

/** What --json prints: the rows, the trials that could not be measured, and how each measured resume was examined. */
export function matrixJson(what: string, trials: MatrixTrial[]): string {
  const measured = trials.flatMap((t) => (t.report ? [t.report] : []));
  const modes: Record<string, number> = {};
  for (const r of measured) modes[r.mode] = (modes[r.mode] ?? 0) + 1;
  const problems = trials.flatMap((t) => (t.problem !== undefined ? [{ trial: t.trial, problem: t.problem }] : []));
  const doc = {
    schemaVersion: 1,
    target: what,
    trials: trials.length,
    measured: measured.length,
    modes,
    classes: tallyMatrix(measured),
    problems,
  };
  return `${escapedJson(doc, 2)}\n`;
}

const cell = (r: MatrixRow): string => `${r.survives}/${r.n}`;

/** The table: one line per class (survives/n, lost, changed, not-applicable, the interval, an example detail). */
export function formatMatrix(what: string, trials: MatrixTrial[]): string {
  const measured = trials.flatMap((t) => (t.report ? [t.report] : []));
  const rows = tallyMatrix(measured);
  const w = Math.max(...rows.map((r) => r.class.length));
  const modes = [...new Set(measured.map((r) => r.mode))].join(', ') || 'none';
  const lines = [
    `survival matrix of ${what}: ${trials.length} kill/resume trials, ${measured.length} measured (examined by: ${modes})`,
    `${'class'.padEnd(w)}  survives  lost  changed  n/a  survives (95% Wilson)  example`,
    ...rows.map(
      (r) =>
        `${r.class.padEnd(w)}  ${cell(r).padEnd(8)}  ${String(r.lost).padEnd(4)}  ${String(r.changed).padEnd(7)}  ${String(r.notApplicable).padEnd(3)}  ${fmtPctInterval(r.interval).padEnd(21)}  ${r.examples[0] ?? ''}`,
    ),
  ];
  for (const t of trials) if (t.problem !== undefined) lines.push(`trial ${t.trial} not measured: ${t.problem}`);
  lines.push('a measurement, not a verdict: which class a runtime promises to keep is for a gate to judge');
  return `${lines.join('\n')}\n`;
}

/** 0: every trial measured; 5: an adapter broke the protocol; 2: some trials could not be measured (insufficient). */
export function matrixExitCode(trials: MatrixTrial[]): number {
  if (trials.some((t) => t.adapterFault)) return EXIT.adapterFault;
  return trials.every((t) => t.report !== null) ? EXIT.pass : EXIT.insufficient;
}
