// What a report says of the guest state (issue 33): the one sentence that opens the verdict with what it covers and
// what it does not, and the "Durability limits" lines written from the measured guest-state tally (summary.json
// guestState): "tmp-file (a file in /tmp): lost in 20/20 resumes". A class lost but not promised is a fact, not a failure.
import type { ClassSummary, GuestStateSummary } from '../analysis/guest-state-tally.js';
import type { Summary } from '../analysis/summary.js';
import type { WorkSummary } from '../analysis/work-tally.js';
import { MATRIX_ONLY, STATE_CLASSES, type StateClass } from '../check/survival.js';
import { fmtPctInterval } from './text/format.js';

const TITLE = new Map<StateClass, string>(STATE_CLASSES.map(([id, title]) => [id, title]));
const CHAINS = "the workload's three chains (workspace log, in-memory hash chain, tool process)";
const NOT_PROBED = 'not probed in this run (scenario field probe or promises; docs/what-survives.md)';

/** Classes not kept in every examined resume (lost, changed or not applicable at least once), in matrix order. */
const notKept = (g: GuestStateSummary): ClassSummary[] =>
  g.examined === 0 ? [] : g.classes.filter((c) => c.survives < g.examined);

/** What the verdict covers of the coding workload (summary work; empty when the run had none). */
function workScope(w: WorkSummary | undefined): string {
  if (w === undefined) return '';
  const { min, p50, max } = w.iterations;
  if (max === 0)
    return `, and not the coding workload's builds and tests: none of the ${w.resumes} resumed states had finished an iteration`;
  const space =
    (w.outOfSpace ?? 0) > 0
      ? `; in ${w.outOfSpace} of them a step had last failed with the guest's own disk full, not counted against the system (a disk too small for the workload: its work then stops)`
      : '';
  return `, and the coding workload's builds, tests and server (${w.resumes} resumed states, at iteration ${min}-${max}, p50 ${p50}${space})`;
}

/** The sentence that opens the verdict: what it covers, what it does not. */
export function verdictScope(s: Pick<Summary, 'cycles' | 'guestState' | 'work'>): string {
  const g = s.guestState;
  const covers = `This verdict covers: ${CHAINS}${workScope(s.work)} across ${s.cycles.total} kill/resume cycles`;
  if (g === undefined)
    return `${covers}; it does not cover: any other guest state (files in /tmp, processes, sockets, clocks), ${NOT_PROBED}.`;
  const promised = g.promised.length > 0 ? `, and the promised classes ${g.promised.join(', ')} (gate 10)` : '';
  if (g.examined === 0)
    return `${covers}${promised}; it does not cover: the guest state, no resume of which was examined by the probe.`;
  const lost = notKept(g).filter((c) => !g.promised.includes(c.class));
  const kept = g.classes.filter((c) => !g.promised.includes(c.class) && !lost.includes(c));
  const parts = [
    ...(lost.length > 0 ? [`classes measured lost or changed (${lost.map((c) => c.class).join(', ')})`] : []),
    ...(kept.length > 0 ? [`${kept.length} classes measured kept but not promised (not judged)`] : []),
  ];
  const matrixOnly = MATRIX_ONLY.filter((c) => !g.classes.some((x) => x.class === c));
  if (matrixOnly.length > 0) parts.push(`${matrixOnly.join(', ')} (measured only by soak target check --matrix)`);
  return `${covers}${promised}; it does not cover: ${parts.length > 0 ? parts.join(' and ') : 'nothing else the probe measures'}.`;
}

/** Absolute paths cut to their last two parts (a report names no user's folders): "…/session/tmp/x". */
const shortPaths = (text: string): string => text.replace(/(^|\s)\/\S*\/([^/\s]+\/[^/\s:]+)/g, '$1…/$2');

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;

/** One class not kept, as a measured fact. */
function limitLine(c: ClassSummary, g: GuestStateSummary): string {
  const how = [
    ...(c.lost > 0 ? [`lost in ${c.lost}/${g.examined} resumes`] : []),
    ...(c.changed > 0 ? [`changed in ${c.changed}/${g.examined}`] : []),
    ...(c.notApplicable > 0 ? [`not applicable in ${c.notApplicable}/${g.examined}`] : []),
  ].join(', ');
  const judged = g.promised.includes(c.class)
    ? 'promised: gate 10 fails'
    : 'not promised: a measured limit, not a failure';
  const example = c.example !== undefined ? `; e.g. ${shortPaths(c.example)}` : '';
  return `${c.class} (${TITLE.get(c.class) ?? c.class}): ${how}; survives ${fmtPctInterval(c.survives95)} (Wilson 95%, n = ${c.n}); ${judged}${example}`;
}

/** The guest-state lines of "Durability limits". */
export function guestStateLimits(g: GuestStateSummary | undefined): string[] {
  if (g === undefined) return [`Guest state beyond ${CHAINS}: ${NOT_PROBED}.`];
  const lines: string[] = [];
  if (g.examined === 0) lines.push('Guest state: no resume was examined by the probe, so nothing is measured of it.');
  lines.push(...notKept(g).map((c) => limitLine(c, g)));
  const always = g.examined > 0 ? g.classes.filter((c) => c.survives === g.examined) : [];
  if (always.length > 0)
    lines.push(`Kept in all ${g.examined} examined resumes: ${always.map((c) => c.class).join(', ')}.`);
  if (g.unprobed > 0)
    lines.push(`${plural(g.unprobed, 'resume')} could not be probed: the target does not run the probe.`);
  if (g.unexamined > 0)
    lines.push(`${plural(g.unexamined, 'resume')} left unexamined (not counted): ${g.problems.join('; ')}.`);
  return lines;
}

/** The survival matrix of the run's examined resumes: one row per class (empty when none was examined). */
export function guestStateMatrix(g: GuestStateSummary | undefined): { header: string[]; rows: string[][] } {
  const header = ['Class', 'Survives', 'Lost', 'Changed', 'Not applicable', 'Survives (Wilson 95%)', 'Promised'];
  if (g === undefined || g.examined === 0) return { header, rows: [] };
  const rows = g.classes.map((c) => [
    c.class,
    `${c.survives}/${c.n}`,
    String(c.lost),
    String(c.changed),
    String(c.notApplicable),
    fmtPctInterval(c.survives95),
    g.promised.includes(c.class) ? 'yes' : '',
  ]);
  return { header, rows };
}
