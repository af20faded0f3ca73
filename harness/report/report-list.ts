// Read the dated reports in a reports folder (each one's summary.json) for the index; unreadable ones are listed, not fatal.
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { verdictLevel, type VerdictLevel } from '../gates/verdict.js';

/** Folder names the index considers: <yyyy-mm-dd>-<slug>[-k]. */
export const REPORT_DIR_PATTERN = /^(\d{4}-\d{2}-\d{2})-[a-z0-9-]+$/;

/** What the index shows for one report (strings unescaped). */
export interface ReportEntry {
  dir: string;
  date: string;
  startedAt: string;
  scenario: string;
  target: string;
  cycles: number | null;
  successes: number | null;
  trials: number | null;
  wilsonLo: number | null;
  p95Ms: number | null;
  /** How many downtime samples the p95 rests on. */
  downtimeN: number | null;
  /** The run was a negative control (it passes when the checker catches its planted fault). */
  negativeControl: boolean;
  verdict: VerdictLevel | 'unreadable';
}

const LEVELS: readonly string[] = [
  'pass',
  'fail',
  'inconclusive',
  'insufficient',
  'adapter-fault',
  'none',
] satisfies VerdictLevel[];

function obj(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}
function num(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}
function str(value: unknown, fallback: string): string {
  return typeof value === 'string' ? value : fallback;
}

/** The verdict summary.json stored; for an older one without it, the lattice over its stored fields. */
export function storedVerdict(s: Record<string, unknown>): VerdictLevel {
  const level = obj(s['verdict'])['level'];
  if (typeof level === 'string' && LEVELS.includes(level)) return level as VerdictLevel;
  const gates = Array.isArray(s['gates']) ? s['gates'].map((g) => obj(g)['verdict']) : [];
  return verdictLevel({
    // an unknown gate verdict counts as insufficient: never read a gate as passing that did not say so
    gates: gates.map((v) => ({
      verdict: v === 'pass' || v === 'fail' || v === 'inconclusive' ? v : 'insufficient',
    })),
    violations: num(s['violations']) ?? 0,
    adapterFaults: num(obj(s['adapterFaults'])['count']) ?? 0,
    negativeControl: s['negativeControl'] === true,
    trials: num(obj(s['killResume'])['trials']) ?? 0,
  });
}

/** Interpret one parsed summary.json (summary fields plus `verdict` and `gates`) defensively: wrong types become nulls. */
export function entryFromSummary(dir: string, dirDate: string, json: unknown): ReportEntry {
  const s = obj(json);
  const kr = obj(s['killResume']);
  const wilson = Array.isArray(kr['wilson95']) ? kr['wilson95'] : [];
  const verdict = storedVerdict(s);
  return {
    dir,
    date: /^\d{4}-\d{2}-\d{2}$/.test(str(s['date'], '')) ? str(s['date'], '') : dirDate,
    startedAt: str(s['startedAt'], ''),
    scenario: str(s['scenario'], dir),
    target: str(s['target'], 'unknown'),
    cycles: num(obj(s['cycles'])['total']),
    successes: num(kr['successes']),
    trials: num(kr['trials']),
    wilsonLo: num(wilson[0]),
    p95Ms: num(obj(s['downtimeMs'])['p95']),
    downtimeN: num(obj(s['downtimeMs'])['n']),
    negativeControl: s['negativeControl'] === true,
    verdict,
  };
}

/** All dated reports in reportsDir, newest first (date, then start time, then folder name). */
export async function listReports(reportsDir: string): Promise<ReportEntry[]> {
  const names = await readdir(reportsDir, { withFileTypes: true });
  const out: ReportEntry[] = [];
  for (const d of names) {
    const m = REPORT_DIR_PATTERN.exec(d.name);
    if (!d.isDirectory() || !m) continue;
    const dirDate = m[1] ?? '';
    try {
      out.push(
        entryFromSummary(
          d.name,
          dirDate,
          JSON.parse(await readFile(path.join(reportsDir, d.name, 'summary.json'), 'utf8')) as unknown,
        ),
      );
    } catch {
      out.push({
        dir: d.name,
        date: dirDate,
        startedAt: '',
        scenario: d.name,
        target: 'unknown',
        cycles: null,
        successes: null,
        trials: null,
        wilsonLo: null,
        p95Ms: null,
        downtimeN: null,
        negativeControl: false,
        verdict: 'unreadable',
      });
    }
  }
  const key = (e: ReportEntry): string => `${e.date}\u0000${e.startedAt}\u0000${e.dir}`;
  return out.sort((a, b) => (key(a) < key(b) ? 1 : key(a) > key(b) ? -1 : 0));
}
