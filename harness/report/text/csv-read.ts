// Parse CSV text (RFC 4180: quoted fields, doubled quotes, newlines inside quotes, CRLF) into rows, naming the bad line.
// Hand-written: the project writes CSV with csv-stringify but has no parser installed (csv-parse would be the library).

/** A CSV syntax problem at a 1-based line of the text. */
export class CsvSyntaxError extends Error {
  constructor(
    readonly line: number,
    detail: string,
  ) {
    super(`line ${line}: ${detail}`);
    this.name = 'CsvSyntaxError';
  }
}

/** Every record of `text` as an array of cells, with the 1-based line each record starts on; a final newline is optional. */
export function parseCsv(text: string): { cells: string[]; line: number }[] {
  const records: { cells: string[]; line: number }[] = [];
  let cells: string[] = [];
  let cell = '';
  let line = 1;
  let start = 1;
  let quoted = false; // inside a quoted field
  let afterQuote = false; // a quoted field just closed: only a comma or a line end may follow
  const endRecord = (): void => {
    cells.push(cell);
    records.push({ cells, line: start });
    cells = [];
    cell = '';
    afterQuote = false;
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (c === '"') {
        quoted = false;
        afterQuote = true;
      } else {
        if (c === '\n') line++;
        cell += c;
      }
      continue;
    }
    if (c === ',') {
      cells.push(cell);
      cell = '';
      afterQuote = false;
    } else if (c === '\n' || (c === '\r' && text[i + 1] === '\n')) {
      if (c === '\r') i++;
      endRecord();
      line++;
      start = line;
    } else if (afterQuote) {
      throw new CsvSyntaxError(line, `unexpected ${JSON.stringify(c)} after a closing quote`);
    } else if (c === '"') {
      if (cell !== '') throw new CsvSyntaxError(line, 'a quote inside an unquoted field');
      quoted = true;
    } else cell += c;
  }
  if (quoted) throw new CsvSyntaxError(start, 'a quoted field is never closed');
  if (cell !== '' || cells.length > 0 || afterQuote) endRecord();
  return records;
}
