// parseCsv: quoted fields, doubled quotes, newlines inside quotes, CRLF; a syntax error names its line.
import { describe, expect, it } from 'vitest';
import { stringify } from 'csv-stringify/sync';
import { CsvSyntaxError, parseCsv } from '../../../harness/report/text/csv-read.js';

describe('parseCsv', () => {
  it('reads what csv-stringify writes, quotes and newlines included', () => {
    const rows = [
      ['cycle', 'violations', 'note'],
      ['1', 'nonce skew', 'a, "quoted"\nsecond line'],
      ['2', '', ''],
    ];
    expect(parseCsv(stringify(rows)).map((r) => r.cells)).toEqual(rows);
    expect(parseCsv(stringify(rows)).map((r) => r.line)).toEqual([1, 2, 4]);
  });

  it('takes CRLF line ends and a missing final newline', () => {
    expect(parseCsv('a,b\r\n1,2').map((r) => r.cells)).toEqual([
      ['a', 'b'],
      ['1', '2'],
    ]);
  });

  it('names the line of an unclosed quote or stray characters', () => {
    expect(() => parseCsv('a,b\n1,"2\n3,4\n')).toThrow(new CsvSyntaxError(2, 'a quoted field is never closed'));
    expect(() => parseCsv('a,b\n1,2\n3,"4"x\n')).toThrow(/^line 3: unexpected "x" after a closing quote/);
    expect(() => parseCsv('a,b\n1,2"\n')).toThrow(/^line 2: a quote inside an unquoted field/);
  });
});
