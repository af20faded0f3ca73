// cycles.csv read back with csv-parse: quoted cells with commas, quotes and newlines, CRLF, blank lines; every problem
// an InputError of one line naming the file and the line (a record's first line when a quoted newline spans two).
import { stringify } from 'csv-stringify/sync';
import { describe, expect, it } from 'vitest';
import { InputError } from '../../../harness/core/errors.js';
import { downtimesFromCsv } from '../../../harness/report/baseline/read-baseline.js';
import { CYCLE_COLUMNS } from '../../../harness/report/text/csv.js';
import { thrown } from '../../helpers/thrown.js';

/** A cycles.csv row: every column empty but the ones given. */
const row = (cells: Partial<Record<string, string>>): string[] => CYCLE_COLUMNS.map((c) => cells[c] ?? '');
const csv = (rows: string[][]): string => stringify([[...CYCLE_COLUMNS], ...rows]);

describe('downtimesFromCsv (csv-parse)', () => {
  it('reads what csv-stringify writes: quotes, commas and newlines in cells; only ok cycles with a downtime', () => {
    const text = csv([
      row({ cycle: '1', outcome: 'ok', downtimeMs: '12.5', violations: 'a, "quoted"\nsecond line' }),
      row({ cycle: '2', outcome: 'fail', downtimeMs: '99' }),
      row({ cycle: '3', outcome: 'ok', downtimeMs: '' }),
      row({ cycle: '4', outcome: 'ok', downtimeMs: '7' }),
    ]);
    expect(downtimesFromCsv(text, 'c.csv')).toEqual([12.5, 7]);
    expect(downtimesFromCsv(text.replace(/\n/g, '\r\n'), 'c.csv')).toEqual([12.5, 7]);
    expect(downtimesFromCsv(`${text}\n\n`, 'c.csv')).toEqual([12.5, 7]); // blank lines
  });

  it('names the line a short row starts on, after a quoted newline', () => {
    const lines = csv([row({ cycle: '1', outcome: 'ok', downtimeMs: '1', violations: 'x\ny' }), ['2', 'ok']]);
    const err = thrown(() => downtimesFromCsv(lines, 'r/cycles.csv'));
    expect(err).toBeInstanceOf(InputError);
    expect(err.message).toBe(`r/cycles.csv:4: 2 cells, the header has ${CYCLE_COLUMNS.length}`);
  });

  it('a syntax error is one line naming file and line', () => {
    const head = CYCLE_COLUMNS.join(',');
    for (const [text, line] of [
      [`${head}\n1,"ok\n`, /^r\/cycles\.csv:\d+: Quote Not Closed/],
      [`${head}\n1,"ok"x\n`, /^r\/cycles\.csv:2: Invalid Closing Quote/],
      [`${head}\n1,o"k\n`, /^r\/cycles\.csv:2: Invalid Opening Quote/],
    ] as const) {
      const err = thrown(() => downtimesFromCsv(text, 'r/cycles.csv'));
      expect(err).toBeInstanceOf(InputError);
      expect(err.message).toMatch(line);
      expect(err.message).not.toContain('\n');
    }
    expect(thrown(() => downtimesFromCsv('', 'r/cycles.csv')).message).toBe(
      'r/cycles.csv:1: empty file; expected a header row',
    );
  });
});
