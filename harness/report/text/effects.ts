// The report's "External effects" section (issue 34): per key discipline, the world's duplicates, the effects it saw
// ahead of the restored state and the ones lost, each with its Wilson 95% interval over the discipline's logical
// effects, the re-emissions per resume, and one sentence of advice drawn from the numbers; summary.md and index.html.
import type { DisciplineSummary, EffectsSummary } from '../../analysis/effects-tally.js';
import { fmtNum, fmtPct, fmtPctInterval } from './format.js';

/** The section as both formats draw it: a lead sentence, a table (header + rows of plain text) and the advice. */
export interface EffectsSection {
  lead: string;
  header: string[];
  rows: string[][];
  advice: string | null;
}

const NAMES = {
  'step-key': 'key from session + step',
  'random-key': 'random key at emit time',
  'no-key': 'no key',
} as const;

/** "3 (1.2%–4.9%)": a count with its interval over n. */
const withInterval = (count: number, interval: readonly [number, number] | null): string =>
  `${count} (${fmtPctInterval(interval)})`;

/** The section for `e` (absent: the run emitted no effects, and the section says so). */
export function effectsSection(e: EffectsSummary | undefined): EffectsSection {
  if (e === undefined)
    return {
      lead: 'Not measured: this run emitted no external effects (a scenario enables them with effects: { everySteps: N }; docs/effects.md).',
      header: [],
      rows: [],
      advice: null,
    };
  const row = (name: string, d: DisciplineSummary): string[] => [
    name,
    String(d.first),
    withInterval(d.duplicates, d.duplicates95),
    withInterval(d.worldAhead, d.worldAhead95),
    withInterval(d.lost, d.lost95),
    e.resumes > 0 ? fmtNum(d.reEmitted / e.resumes) : 'n/a',
    d.reEmittedPerResume
      ? `${fmtNum(d.reEmittedPerResume.p50)} / ${fmtNum(d.reEmittedPerResume.p95)} / ${d.reEmittedPerResume.max}`
      : 'n/a',
  ];
  const n = e.disciplines['step-key'].reEmittedPerResume?.n ?? 0;
  const ds = Object.keys(NAMES) as (keyof typeof NAMES)[];
  const clones = e.clones;
  const cloneRows = clones
    ? ds.map((d) => {
        const c = clones.disciplines[d];
        return [
          `clones: ${NAMES[d]}`,
          String(c.first),
          withInterval(c.duplicates, c.duplicates95),
          'n/a',
          'n/a',
          'n/a',
          'n/a',
        ];
      })
    : [];
  const cloneLead = clones
    ? ` Clones: ${clones.n} times a second session restored the session's newest checkpoint while it ran on, both emitted, and the clone was stopped; a clones row counts the clone's logical effects (n) and the applications the world made only because there were two sessions (duplicates).`
    : '';
  return {
    lead: `The agent called the run's effect ledger at seeded steps under three key disciplines; after each of ${e.resumes} resumes the ledger (what the world applied) was held against the restored state (what the session believed acknowledged). Intervals: Wilson 95% over each discipline's logical effects (n). Re-emitted per resume: the mean over all resumes, and p50 / p95 / max over the ${n} resumes whose session's requests were counted (the ledger counts a session at the next accounting, so a run's last resume may have none).${cloneLead}`,
    header: [
      'discipline',
      'effects (n)',
      'duplicates',
      'world ahead',
      'lost',
      're-emitted per resume (mean)',
      're-emitted per resume (p50 / p95 / max)',
    ],
    rows: [...ds.map((d) => row(NAMES[d], e.disciplines[d])), ...cloneRows],
    advice: adviceOf(e) + cloneAdvice(e),
  };
}

/** One sentence of advice backed by the run's numbers. */
function adviceOf(e: EffectsSummary): string {
  const { 'step-key': step, 'random-key': random, 'no-key': none } = e.disciplines;
  const others = `with random keys: ${random.duplicates} duplicates in ${random.first} effects; without keys: ${none.duplicates} in ${none.first}`;
  if (step.duplicates === 0 && step.lost === 0) {
    const bound = step.duplicates95 ? `, duplicate rate < ${fmtPct(step.duplicates95[1], 'up')} at 95%` : '';
    return `With step-derived keys: 0 duplicates and 0 lost in ${step.first} effects${bound}; ${others}: derive each effect's idempotency key from the session and the step, never from fresh randomness.`;
  }
  return `Step-derived keys still gave ${step.duplicates} duplicates and ${step.lost} lost in ${step.first} effects (${others}): the world or the resume does not keep the exactly-once promise the keys should buy.`;
}

/** The clones' half-sentence of advice (empty without clones). */
function cloneAdvice(e: EffectsSummary): string {
  if (!e.clones) return '';
  const { 'step-key': s, 'random-key': r, 'no-key': n } = e.clones.disciplines;
  return ` Two sessions from one checkpoint (${e.clones.n} clones): with step-derived keys ${s.duplicates} duplicates in ${s.first} effects; with random keys ${r.duplicates} in ${r.first}; without keys ${n.duplicates} in ${n.first}.`;
}

/** The section in summary.md. */
export function effectsMarkdown(e: EffectsSummary | undefined, md: (s: string) => string): string[] {
  const s = effectsSection(e);
  const table =
    s.rows.length === 0
      ? []
      : [
          `| ${s.header.map(md).join(' | ')} |`,
          `|${s.header.map(() => ' --- ').join('|')}|`,
          ...s.rows.map((r) => `| ${r.map(md).join(' | ')} |`),
          '',
        ];
  return ['## External effects', '', md(s.lead), '', ...table, ...(s.advice ? [md(s.advice), ''] : [])];
}
