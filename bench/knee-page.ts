// The knee's page (bench/knee.ts): the table, the largest N at which every gate passed (with its kill-and-resume
// interval), and the chart of downtime p50/p95 against N (bench-page.ts: escaped text, SVG charts, no script).
import { benchPage } from './bench-page.js';

/** One N's figures. */
export interface KneeRow {
  n: number;
  verdict: string;
  /** Gates that did not pass, by verdict: "fail 4", "insufficient 1, 2". */
  failing: string[];
  cycles: number;
  /** Cycles the checker failed (their run folder is kept). */
  failed: number;
  killResume: string;
  killResumeInterval: [number, number] | null;
  killResumeNote: string;
  downP50: number | null;
  downP95: number | null;
  downP95Interval: [number, number] | null;
  pauseP95: number | null;
  checkpointsPerS: number;
  logicalMBps: number;
  storedKBps: number;
  dedup: number | null;
  apartDedup: number | null;
  peakPssMiB: number;
  sessionsPerGiB: number | null;
  load: { before: number; after: number; p50: number | null };
  otherCpuP50: number | null;
  seconds: number;
}

export interface KneeInput {
  target: string;
  scenario: string;
  cycles: number;
  cores: number;
  rows: readonly KneeRow[];
}

const pct = (x: number): string => `${(100 * x).toFixed(1)}%`;
const num = (x: number | null, d = 0): string => (x === null ? '-' : x.toFixed(d));

/** The largest N whose verdict is pass with no smaller N failing, as a sentence (the knee's answer). */
export function largestPassing(rows: readonly KneeRow[]): string {
  const sorted = [...rows].sort((a, b) => a.n - b.n);
  const firstFail = sorted.find((r) => r.verdict === 'fail');
  const passing = sorted.filter((r) => r.verdict === 'pass' && (firstFail === undefined || r.n < firstFail.n));
  const best = passing.at(-1);
  const failed = firstFail ? ` At N = ${firstFail.n}: ${firstFail.failing.join('; ')}.` : '';
  if (best === undefined)
    return `No N passed every gate (verdicts: ${sorted.map((r) => `N ${r.n} ${r.verdict}`).join(', ')}).${failed}`;
  const iv = best.killResumeInterval;
  const down = best.downP95Interval;
  return (
    `Largest N at which every gate passed: ${best.n} (kill-and-resume ${best.killResume}, 95% interval ` +
    `${iv ? `${pct(iv[0])}-${pct(iv[1])}` : '-'}; downtime p95 ${num(best.downP95)} ms, 95% interval ` +
    `${down ? `${num(down[0])}-${num(down[1])} ms` : '-'}).${failed}`
  );
}

const HEADER = [
  'N',
  'Verdict',
  'Kill-resume',
  'Downtime p50 / p95 ms',
  'Pause p95 ms',
  'Checkpoints/s',
  'Logical MB/s',
  'Stored KB/s',
  'Dedup shared / store per session',
  'Peak PSS MiB',
  'Sessions per GiB',
  'Load p50',
  'Other CPU %',
];

function cells(r: KneeRow): string[] {
  return [
    String(r.n),
    r.verdict + (r.failing.length > 0 ? ` (${r.failing.join('; ')})` : ''),
    r.killResume,
    `${num(r.downP50)} / ${num(r.downP95)}`,
    num(r.pauseP95, 1),
    r.checkpointsPerS.toFixed(1),
    r.logicalMBps.toFixed(1),
    r.storedKBps.toFixed(1),
    `${num(r.dedup, 1)} / ${num(r.apartDedup, 1)}`,
    r.peakPssMiB.toFixed(0),
    num(r.sessionsPerGiB, 1),
    num(r.load.p50, 1),
    num(r.otherCpuP50),
  ];
}

/** The page as Markdown and HTML, and the largest-N sentence. */
export async function kneePage(k: KneeInput): Promise<{ markdown: string; html: string; largest: string }> {
  const largest = largestPassing(k.rows);
  const scope = `${k.target} target, scenario ${k.scenario}, ${k.cycles} cycles per session, ${k.cores} cores. Each N is one soak run with --strict-timing: the sessions' own load is what is measured, so a timing gate is judged as measured; "other CPU" is the share of CPU processes outside the run took (outside load). A pooled rate is judged at its effective n (sessions are clusters). Peak PSS is the runner's whole process tree.`;
  const page = await benchPage({
    title: `The knee: ${k.target}`,
    paragraphs: [scope],
    strong: [largest],
    charts: [
      {
        title: 'Downtime against sessions at once',
        xTitle: 'sessions at once (N)',
        yTitle: 'downtime (ms)',
        seriesTitle: 'quantile',
        logX: true,
        points: k.rows.flatMap((r) => [
          { x: r.n, series: 'p50', y: r.downP50 },
          { x: r.n, series: 'p95', y: r.downP95 },
        ]),
        caption: 'Downtime p50 and p95 against N (log scale)',
      },
    ],
    tables: [{ header: HEADER, rows: k.rows.map(cells) }],
    id: 'knee',
  });
  return { ...page, largest };
}
