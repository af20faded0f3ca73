// The exit codes are documented once (core/exit-codes.ts): README's "Exit codes" table and `soak --help`'s epilogue
// are made from it. The README table must equal the generated one (UPDATE_README=1 npx vitest run test/core/exit-codes
// rewrites it); every code of EXIT is documented, once.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXIT } from '../../harness/core/errors.js';
import { EXIT_DOCS, exitCodesTable, exitEpilog } from '../../harness/core/exit-codes.js';
import { HELP_TEXT } from '../../harness/commands/help-text.js';
import { repoRoot } from '../helpers/paths.js';

const README = path.join(repoRoot, 'README.md');
const BEGIN =
  '<!-- exit-codes: generated from harness/core/exit-codes.ts; UPDATE_README=1 npx vitest run test/core/exit-codes -->';
const END = '<!-- exit-codes: end -->';

/** The text between the markers of `readme` (null when the markers are missing). */
function tableIn(readme: string): string | null {
  const at = readme.indexOf(BEGIN);
  const end = readme.indexOf(END);
  return at < 0 || end < at ? null : readme.slice(at + BEGIN.length, end).trim();
}

describe('exit codes', () => {
  it("README's table is the generated one", () => {
    let readme = readFileSync(README, 'utf8');
    if (process.env['UPDATE_README'] === '1') {
      const at = readme.indexOf(BEGIN);
      const end = readme.indexOf(END);
      readme = `${readme.slice(0, at + BEGIN.length)}\n\n${exitCodesTable()}\n\n${readme.slice(end)}`;
      writeFileSync(README, readme);
    }
    expect(tableIn(readme), 'run UPDATE_README=1 npx vitest run test/core/exit-codes').toBe(exitCodesTable());
  });

  it('a table that differs from the generated one is caught (negative control)', () => {
    const readme = readFileSync(README, 'utf8').replace('| 4 | internal error', '| 4 | an internal error');
    expect(tableIn(readme)).not.toBe(exitCodesTable());
    expect(tableIn('no markers here')).toBeNull();
  });

  it('documents every code once, in order, and `soak --help` ends with the generated epilogue', () => {
    const codes = Object.values(EXIT);
    expect(new Set(codes).size).toBe(codes.length);
    expect(Object.keys(EXIT_DOCS).sort()).toEqual(Object.keys(EXIT).sort());
    const rows = exitCodesTable().split('\n').slice(2);
    expect(rows.map((r) => Number(r.split(' | ')[0]!.slice(2)))).toEqual([...codes].sort((a, b) => a - b));
    expect(exitEpilog()).toMatch(/^Exit codes: 0 pass, 1 .*, 130 aborted \(a second Ctrl-C or SIGTERM\)\.$/);
    for (const text of Object.values(HELP_TEXT)) expect(text!.replace(/\s+/g, ' ')).toContain(exitEpilog());
  });
});
