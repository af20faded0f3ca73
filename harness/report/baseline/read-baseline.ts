// Read a previous dated report folder as a baseline: its summary.json (identity, verdict, gates) and the downtimes in its cycles.csv.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { InputError } from '../../core/errors.js';
import type { GateResult } from '../../gates/types.js';
import { CYCLE_COLUMNS } from '../text/csv.js';
import { CsvError, parse } from 'csv-parse/sync';
import { storedVerdict } from '../report-list.js';
import type { VerdictLevel } from '../../gates/verdict.js';

/** What a report says about the previous one: who it was and what it measured. */
export interface Baseline {
  /** The report folder's base name (e.g. 2026-11-30-default). */
  dir: string;
  runId: string;
  date: string;
  startedAt: string;
  scenario: string;
  target: string;
  /** The verdict the baseline stored (never re-derived when it has one). */
  verdict: VerdictLevel;
  /** Its gates as stored: a report older than the typed statistic has no `stat`, so none is read from them. */
  gates: Omit<GateResult, 'stat'>[];
  /** Downtime (ms) of every resumed (ok) cycle, in cycles.csv order: the rule analysis/tally.ts applies to a journal. */
  downtimes: number[];
}

async function readText(file: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new InputError(`${file}: cannot read the baseline (${code ?? String(err)}); pass a dated report folder`, {
      cause: err,
    });
  }
}

/** One CSV record with the 1-based line it starts on. */
interface CsvRecord {
  cells: string[];
  line: number;
}

/**
 * Every record of CSV text (RFC 4180, as csv-stringify writes it; blank lines skipped) with the line it starts on;
 * InputError naming `file` and the line, in one line, for a syntax error.
 */
function readCsv(text: string, file: string): CsvRecord[] {
  let rows: { record: string[]; info: { lines: number } }[];
  try {
    // info: each record with the line it ends on; relax_column_count: the count is checked below, naming the line
    rows = parse(text, { info: true, relax_column_count: true, skip_empty_lines: true }) as unknown as typeof rows;
  } catch (err) {
    if (err instanceof CsvError) {
      const line = (err as CsvError & { lines?: number }).lines ?? 1;
      throw new InputError(`${file}:${line}: ${err.message.replace(/\s+/g, ' ')}`, { cause: err });
    }
    throw err;
  }
  // a quoted newline inside a record moves the line it starts on up
  const newlines = (cells: string[]): number => cells.reduce((n, c) => n + (c.match(/\n/g)?.length ?? 0), 0);
  return rows.map(({ record, info }) => ({ cells: record, line: info.lines - newlines(record) }));
}

/** Downtimes of the ok cycles in a cycles.csv text; InputError naming `file` and the line for anything malformed. */
export function downtimesFromCsv(text: string, file: string): number[] {
  const records = readCsv(text, file);
  const header = records[0];
  if (header === undefined) throw new InputError(`${file}:1: empty file; expected a header row`);
  const outcomeAt = header.cells.indexOf('outcome');
  const downtimeAt = header.cells.indexOf('downtimeMs');
  if (outcomeAt < 0 || downtimeAt < 0)
    throw new InputError(`${file}:1: header lacks "outcome" or "downtimeMs" (expected ${CYCLE_COLUMNS.join(',')})`);
  const out: number[] = [];
  for (const { cells, line } of records.slice(1)) {
    if (cells.length !== header.cells.length)
      throw new InputError(`${file}:${line}: ${cells.length} cells, the header has ${header.cells.length}`);
    if (cells[outcomeAt] !== 'ok') continue;
    const raw = cells[downtimeAt]!;
    if (raw === '') continue; // resumed but never measured (no verified heartbeat time)
    const ms = Number(raw);
    if (!Number.isFinite(ms) || ms < 0)
      throw new InputError(`${file}:${line}: downtimeMs ${JSON.stringify(raw)} is not a non-negative number`);
    out.push(ms);
  }
  return out;
}

/** The stored gates, each checked for the fields a comparison reads (id, title, verdict, n); the rest is printed as stored. */
function gatesOf(value: unknown, file: string): Baseline['gates'] {
  if (!Array.isArray(value)) throw new InputError(`${file}: field "gates" is missing or not an array`);
  value.forEach((g: unknown, i) => {
    const r = (typeof g === 'object' && g !== null ? g : {}) as Record<string, unknown>;
    for (const [key, type] of [
      ['id', 'number'],
      ['title', 'string'],
      ['verdict', 'string'],
      ['n', 'number'],
    ] as const)
      if (typeof r[key] !== type) throw new InputError(`${file}: gates[${i}].${key} is missing or not a ${type}`);
  });
  return value as Baseline['gates'];
}

function field(s: Record<string, unknown>, key: string, file: string): string {
  const v = s[key];
  if (typeof v !== 'string' || v === '') throw new InputError(`${file}: field "${key}" is missing or not a string`);
  return v;
}

/** Load the baseline report in `dir`: InputError (exit 3) naming the file, and the line or field, when it is missing or malformed. */
export async function readBaseline(dir: string): Promise<Baseline> {
  const jsonFile = path.join(dir, 'summary.json');
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readText(jsonFile));
  } catch (err) {
    if (err instanceof InputError) throw err;
    throw new InputError(`${jsonFile}: not valid JSON (${(err as Error).message})`, { cause: err });
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new InputError(`${jsonFile}: expected a JSON object`);
  const s = parsed as Record<string, unknown>;
  const csvFile = path.join(dir, 'cycles.csv');
  return {
    dir: path.basename(path.resolve(dir)),
    runId: field(s, 'runId', jsonFile),
    date: field(s, 'date', jsonFile),
    startedAt: typeof s['startedAt'] === 'string' ? s['startedAt'] : '',
    scenario: field(s, 'scenario', jsonFile),
    target: field(s, 'target', jsonFile),
    verdict: storedVerdict(s),
    gates: gatesOf(s['gates'], jsonFile),
    downtimes: downtimesFromCsv(await readText(csvFile), csvFile),
  };
}
