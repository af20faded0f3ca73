// Valid JSON that is not a valid journal event (issue 13, finding 7): each used to crash analysis (exit 4) or count
// as a sample. Shared by the fast/slow path test and the parallel test: each case changes one line of a real journal
// and says what the error must name (after "line <n>: ").
import { fixtureText } from '../helpers/journals.js';

/** The journal the cases change: 20 cycles, every outcome ok with no violations (so the fast path reads them). */
export const GARBAGE_JOURNAL = 'process-torn-checkpoint';

/** One way to break a line, the event type of the line it breaks, and the problem the error must state. */
export interface GarbageCase {
  what: string;
  type: string;
  change: (line: string) => string;
  problem: string;
}

/** Set `field` of a journal line (JSON text) to `json`, keeping the key order. */
const set =
  (field: string, json: string) =>
  (line: string): string =>
    line.replace(new RegExp(`"${field}":(-?[0-9.eE+]+|null|"[^"]*"|\\[\\])`), `"${field}":${json}`);
/** Remove `field` (and its comma) from a journal line. */
const drop =
  (field: string) =>
  (line: string): string =>
    line.replace(new RegExp(`,"${field}":(-?[0-9.eE+]+|null|"[^"]*"|\\[\\])`), '');

export const GARBAGE_CASES: GarbageCase[] = [
  {
    what: 'violations not an array',
    type: 'cycle',
    change: set('violations', '"none"'),
    problem: 'cycle.violations: expected a list of violations, got "none"',
  },
  {
    what: 'a missing field (violations)',
    type: 'cycle',
    change: drop('violations'),
    problem: 'cycle.violations: expected a list of violations, got nothing (the field is missing)',
  },
  {
    what: 'a missing field (downtimeMs)',
    type: 'cycle',
    change: drop('downtimeMs'),
    problem: 'cycle.downtimeMs: expected a finite number >= 0 or null, got nothing (the field is missing)',
  },
  {
    what: 'Infinity (1e999)',
    type: 'cycle',
    change: set('downtimeMs', '1e999'),
    problem: 'cycle.downtimeMs: expected a finite number >= 0 or null, got Infinity',
  },
  {
    what: 'cycle:"abc"',
    type: 'cycle',
    change: set('cycle', '"abc"'),
    problem: 'cycle.cycle: expected an integer >= 1, got "abc"',
  },
  {
    what: 'outcome:"banana"',
    type: 'cycle',
    change: set('outcome', '"banana"'),
    problem: 'cycle.outcome: expected one of ok, fail, indeterminate, got "banana"',
  },
  {
    what: 'a negative downtime',
    type: 'cycle',
    change: set('downtimeMs', '-3'),
    problem: 'cycle.downtimeMs: expected a finite number >= 0 or null, got -3',
  },
  {
    what: 'a negative checkpoint pause',
    type: 'checkpoint',
    change: set('pauseMs', '-0.5'),
    problem: 'checkpoint.pauseMs: expected a finite number >= 0, got -0.5',
  },
  {
    what: 'cycle id 0 on a cycle-start',
    type: 'cycle-start',
    change: set('cycle', '0'),
    problem: 'cycle-start.cycle: expected an integer >= 1, got 0',
  },
  {
    what: 'a fractional step on a restore',
    type: 'restore',
    change: set('step', '2.5'),
    problem: 'restore.step: expected an integer >= 0, got 2.5',
  },
  {
    what: 'an infinite time t on a kill',
    type: 'kill',
    change: set('t', '-1e999'),
    problem: 'kill.t: expected a finite number >= 0, got -Infinity',
  },
];

/** `name`'s journal with line `n` (1-based) changed. */
export function withLineChanged(name: string, n: number, change: (line: string) => string): string {
  const lines = fixtureText(name).split('\n');
  const before = lines[n - 1]!;
  lines[n - 1] = change(before);
  if (lines[n - 1] === before) throw new Error(`the change left line ${n} as it was: ${before.slice(0, 80)}`);
  return lines.join('\n');
}

/** Line numbers (1-based) of the lines of `type` in `name`'s journal. */
export function linesOfType(name: string, type: string): number[] {
  return fixtureText(name)
    .split('\n')
    .flatMap((l, i) => (l.includes(`"type":"${type}",`) ? [i + 1] : []));
}
