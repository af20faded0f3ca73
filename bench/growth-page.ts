// How a micro-VM resume's cost grows (issue 37, part 3; bench/growth.ts), its pure parts: the options, the journal's
// per-cycle samples, the tables (downtime and its restore steps against guest RAM beside each size's bare floor, against
// the workload's step rate, against the checkpoints already in the store), the bar at 1 GiB, and the page
// with its charts (bench-page.ts).
import { benchPage, type ChartPoint, type LineChart } from './bench-page.js';
import type { byCheckpoints } from './growth-samples.js';
import { median } from './measure.js';

/** The bench's options once checked. */
export interface GrowthOptions {
  sizes: number[];
  cycles: number;
  floor: number;
  /** KiB the agent dirties per step (targetOptions.dirtyKiBPerStep) for the dirty-rate axis, at `at` MiB, standby. */
  dirty: number[];
  /** Cycles of the one soak whose per-cycle downtime is set against the checkpoints in its store (0: skipped). */
  checkpoints: number;
  /** The guest size of the second and third axes. */
  at: number;
  modes: Array<'cold' | 'standby' | 'pool'>;
  /** How long a guest may take to boot before its size is reported as not measured (s). */
  bootWaitS: number;
}

const list = (name: string, raw: string, ok: (n: number) => boolean, what: string): number[] => {
  const xs = raw.split(',').map((x) => x.trim());
  const ns = xs.map(Number);
  if (xs.some((x) => x === '') || ns.some((n) => !Number.isInteger(n) || !ok(n)))
    throw new Error(`--${name} must list ${what}, comma-separated (got "${raw}")`);
  return ns;
};
const whole = (name: string, raw: string, min: number, max = 10_000): number => {
  const n = Number(raw);
  if (raw.trim() === '' || !Number.isInteger(n) || n < min || n > max)
    throw new Error(`--${name} must be a whole number ${min}-${max} (got "${raw}")`);
  return n;
};

/** Check the raw option strings; an Error whose message is the one line to print (exit 3). */
export function growthOptions(v: Record<string, string>): GrowthOptions {
  const size = (n: number): boolean => n >= 64 && n <= 16_384;
  const sizes = list('sizes', v.sizes ?? '', size, 'guest sizes in MiB, 64-16384');
  const modes = (v.modes ?? '').split(',');
  if (modes.some((m) => m !== 'cold' && m !== 'standby' && m !== 'pool'))
    throw new Error(`--modes must list cold, standby and/or pool (got "${v.modes ?? ''}")`);
  const at = whole('at', v.at ?? String(sizes[0]), 64);
  if (!size(at)) throw new Error(`--at must be a guest size in MiB, 64-16384 (got "${v.at ?? ''}")`);
  return {
    sizes,
    cycles: whole('cycles', v.cycles ?? '', 1),
    floor: whole('floor', v.floor ?? '', 1),
    dirty:
      v.dirty === '' ? [] : list('dirty', v.dirty ?? '', (n) => n >= 0 && n <= 65_536, 'KiB dirtied per step, 0-65536'),
    checkpoints: whole('checkpoints', v.checkpoints ?? '', 0),
    at,
    modes: [...new Set(modes)] as GrowthOptions['modes'],
    bootWaitS: whole('boot-wait', v['boot-wait'] ?? '60', 10, 600),
  };
}

/** One soak's figures as the bench keeps them. */
export interface ModeFigures {
  mode: string;
  p50: number;
  p95: number;
  resumed: number;
  cycles: number;
  /** Restore steps: each one's median ms since the step before (restore-timeline.ts). */
  steps: Record<string, number>;
  /** Median bytes per checkpoint but the store's first: the stream (logical) and what the store newly kept of it (stored). */
  logicalPerCkpt: number | null;
  storedPerCkpt: number | null;
}

/** One guest size: its bare floor, each mode's soak, or why it was not measured. */
export interface SizeRow {
  memoryMiB: number;
  floorMs: number[];
  /** Medians of the bare floor's phases: spawn -> QMP, stream loaded, cont -> first full heartbeat. */
  floorPhases: { qmpMs: number; loadMs: number; contToHbMs: number } | null;
  streamBytes: number | null;
  modes: ModeFigures[];
  load: string;
  /** Set when this size could not be measured (e.g. its guest did not boot in the bounded wait). */
  skipped?: string;
}

/** One setting of the dirty-rate axis: KiB of RAM the agent dirtied per step. */
export interface DirtyRow {
  kibPerStep: number;
  figures: ModeFigures;
  load: string;
}

const f0 = (x: number | null | undefined): string =>
  x === null || x === undefined || !Number.isFinite(x) ? '-' : x.toFixed(0);
const ratio = (x: number, floor: number): string =>
  floor > 0 && Number.isFinite(x) ? `${(x / floor).toFixed(2)}x` : '-';
const mb = (b: number | null): string => (b === null ? '-' : (b / 1e6).toFixed(1));
/** The restore steps but the RAM step, as `step ms` pairs. */
const otherSteps = (s: Record<string, number>): string =>
  Object.entries(s)
    .filter(([k]) => k !== 'ram')
    .map(([k, v]) => `${k} ${f0(v)}`)
    .join(', ');

export const SIZE_HEADER = [
  'Guest MiB',
  'Floor median ms (range, n)',
  'Floor: stream loaded ms',
  'Stream MB',
  'Mode',
  'Downtime p50 ms (x floor)',
  'p95 ms (x floor)',
  'Resumed',
  'RAM step ms',
  'Other restore steps (median ms)',
  'Load',
];

/** The size table's rows: one per size and mode (a size's floor cells repeat on each of its modes). */
export function sizeRows(rows: readonly SizeRow[]): string[][] {
  return rows.flatMap((r) => {
    const fl = median(r.floorMs);
    const floor =
      r.floorMs.length === 0
        ? '-'
        : `${f0(fl)} (${f0(Math.min(...r.floorMs))}-${f0(Math.max(...r.floorMs))}, ${r.floorMs.length})`;
    const head = [String(r.memoryMiB), floor, f0(r.floorPhases?.loadMs), mb(r.streamBytes)];
    if (r.skipped !== undefined) return [[...head, '-', `not measured: ${r.skipped}`, '-', '-', '-', '-', r.load]];
    return r.modes.map((m) => [
      ...head,
      m.mode,
      `${f0(m.p50)} (${ratio(m.p50, fl)})`,
      `${f0(m.p95)} (${ratio(m.p95, fl)})`,
      `${m.resumed}/${m.cycles}`,
      f0(m.steps.ram),
      otherSteps(m.steps),
      r.load,
    ]);
  });
}

/** Issue 37's bar, judged where it was measured: a 1 GiB guest from the store, p50 <= 1.5x the 1 GiB floor. */
export function barAt1GiB(rows: readonly SizeRow[]): string {
  const r = rows.find((x) => x.memoryMiB === 1024 && x.skipped === undefined && x.floorMs.length > 0);
  if (r === undefined) return 'Issue 37 bar (1 GiB from the store, p50 <= 1.5x the 1 GiB floor): not measured.';
  const fl = median(r.floorMs);
  const verdicts = r.modes.map(
    (m) => `${m.mode} ${(m.p50 / fl).toFixed(2)}x ${m.p50 / fl <= 1.5 ? 'meets' : 'misses'}`,
  );
  return `Issue 37 bar (1 GiB from the store, p50 <= 1.5x the 1 GiB floor of ${f0(fl)} ms): ${verdicts.join('; ')}.`;
}

/** Everything one run measured. */
export interface GrowthInput {
  options: GrowthOptions;
  cores: number;
  accel: string;
  date: string;
  command: string;
  load: { before: string; after: string };
  sizes: SizeRow[];
  dirty: DirtyRow[];
  checkpoints: { memoryMiB: number; groups: ReturnType<typeof byCheckpoints> } | null;
}

/** The page (Markdown and HTML) and the bar's sentence. */
export async function growthPage(g: GrowthInput): Promise<{ markdown: string; html: string; bar: string }> {
  const bar = barAt1GiB(g.sizes);
  const atFloor = median(g.sizes.find((s) => s.memoryMiB === g.options.at)?.floorMs ?? []);
  const measured = g.sizes.filter((s) => s.skipped === undefined);
  const points: ChartPoint[] = measured.flatMap((s) => [
    { x: s.memoryMiB, series: 'bare floor', y: median(s.floorMs) },
    ...s.modes.flatMap((m) => [
      { x: s.memoryMiB, series: `${m.mode} p50`, y: m.p50 },
      { x: s.memoryMiB, series: `${m.mode} RAM step`, y: m.steps.ram ?? null },
    ]),
  ]);
  const charts: LineChart[] = [
    {
      title: 'Resume downtime against guest RAM',
      xTitle: 'guest RAM (MiB)',
      yTitle: 'ms',
      seriesTitle: 'series',
      logX: true,
      points,
      caption: "Downtime p50 and the restore's RAM step per mode, beside the bare floor at each size (log-2 x)",
    },
  ];
  const scope = [
    `${g.date}, ${g.cores} cores, accelerator ${g.accel}, load average before ${g.load.before}, after ${g.load.after}.`,
    `Command: ${g.command}.`,
    `Each size: ${g.options.floor} bare floor trials (a new QEMU loading the guest's RAM stream from a local file, to the first verified heartbeat), then a ram-only soak of ${g.options.cycles} cycles per mode restoring from the store (cold: a new host; pool: a pre-started host that read nothing of the session before the kill; standby: a warm standby host with its warm copy), downtime = SIGKILL -> first verified heartbeat, ratios to that size's floor median measured in this run; a guest that did not boot within ${g.options.bootWaitS} s is not measured.`,
    "The dirty rate: the agent writes the row's KiB of pseudo-random bytes to a 32 MiB ring in its RAM at every step (targetOptions.dirtyKiBPerStep; 5 ms steps, fewer per second when a step's writes take longer under TCG), on top of its log line, chains and tool. What the store newly kept per checkpoint (median over every checkpoint but the store's first) is the measured change: the dirty rate as the store saw it.",
  ];
  const dirtyRows = g.dirty.map((d) => [
    String(d.kibPerStep),
    d.figures.mode,
    `${f0(d.figures.p50)} (${ratio(d.figures.p50, atFloor)})`,
    `${f0(d.figures.p95)} (${ratio(d.figures.p95, atFloor)})`,
    `${d.figures.resumed}/${d.figures.cycles}`,
    f0(d.figures.steps.ram),
    mb(d.figures.logicalPerCkpt),
    mb(d.figures.storedPerCkpt),
    d.load,
  ]);
  const ck = g.checkpoints;
  return {
    bar,
    ...(await benchPage({
      title: 'How a micro-VM resume grows',
      paragraphs: scope,
      strong: [bar],
      charts,
      tables: [
        { heading: 'Against guest RAM', header: SIZE_HEADER, rows: sizeRows(g.sizes) },
        {
          heading: `Against the dirty rate, ${g.options.at} MiB, x its floor`,
          header: [
            'KiB dirtied/step',
            'Mode',
            'p50 ms (x floor)',
            'p95 ms (x floor)',
            'Resumed',
            'RAM step ms',
            'Stream MB/ckpt',
            'Stored MB/ckpt',
            'Load',
          ],
          rows: dirtyRows,
          empty: 'not measured in this run (--dirty "")',
        },
        {
          heading: `Against checkpoints in the store, ${ck?.memoryMiB ?? g.options.at} MiB, one standby soak`,
          header: ['Checkpoints in store', 'Cycles', 'Downtime p50 ms (x floor)', 'Max ms'],
          rows: (ck?.groups ?? []).map((c) => [
            `${c.from}-${c.to}`,
            String(c.n),
            `${f0(c.p50)} (${ratio(c.p50, atFloor)})`,
            f0(c.max),
          ]),
          empty: 'not measured in this run (--checkpoints 0)',
        },
      ],
      id: 'growth',
    })),
  };
}
