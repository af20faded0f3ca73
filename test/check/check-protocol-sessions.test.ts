// A journal naming a session its run did not run, through the real CLI (issue 36): a real one-session journal (from
// before sessions: it ran one) with one outcome stamped session 3, and the same journal's run-start made a run of 2
// sessions with an event of session 2. `soak check` names the line (exit 3, as for every damaged journal: README "Exit
// codes"); `soak report` refuses it in one line (exit 3), no report written. The negative control: session 1 of the
// 2-session run-start is sound.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { fixtureText, scratchRunFolders } from '../helpers/journals.js';
import { describeResult, soakIn } from '../helpers/cli.js';

const runFolder = scratchRunFolders('soak-check-sessions-');
const cwd = path.dirname(runFolder(''));
const soak = soakIn(() => cwd, 120_000);

const lines = fixtureText('process-default').trimEnd().split('\n');
const at = (type: string, cycle: number): number =>
  lines.findIndex((l) => l.includes(`"type":"${type}"`) && l.includes(`"cycle":${cycle},`));
/** The fixture with its line `i` (0-based) stamped `session`, and its run-start running `sessions` (absent: as is). */
function stamped(i: number, session: number, sessions?: number): string {
  const out = lines.map((l, k) => (k === i ? l.replace(/}$/, `,"session":${session}}`) : l));
  if (sessions !== undefined)
    out[0] = out[0]!.replace('"targetOptions":{}}', `"targetOptions":{},"sessions":${sessions}}`);
  return `${out.join('\n')}\n`;
}

describe.concurrent('a journal with an event of a session its run-start did not run', () => {
  it('soak check names the line, exit 3; --json gives its code', async () => {
    const line = at('cycle', 2) + 1;
    const r = await soak('check', runFolder(stamped(line - 1, 3)));
    expect(r.exitCode, describeResult(r)).toBe(3);
    expect(r.stdout.split('\n')).toContain(
      `line ${line}: session-out-of-range: a cycle event of session 3, but the run-start at line 1 ran 1 session (0 to 0)`,
    );
    const json = await soak('check', runFolder(stamped(line - 1, 3)), '--json');
    expect(json.exitCode).toBe(3);
    const parsed = JSON.parse(json.stdout) as { journalErrors: { line: number; code: string }[] };
    expect(parsed.journalErrors.map((e) => `${e.line} ${e.code}`)).toEqual([`${line} session-out-of-range`]);
  });

  it('soak report refuses a 2-session run-start with an event of session 2 in one line (exit 3), no report', async () => {
    const line = at('cycle-start', 3) + 1;
    const dir = runFolder(stamped(line - 1, 2, 2));
    const r = await soak('report', dir, '--out', path.join(dir, 'reports'));
    expect(r.exitCode, describeResult(r)).toBe(3);
    expect(r.stderr.trimEnd().split('\n')).toEqual([
      `soak: journal ${path.join(dir, 'journal.ndjson')} is damaged: line ${line}: session-out-of-range: a cycle-start event of session 2, but the run-start at line 1 ran 2 sessions (0 to 1); nothing from it is analysed (soak check <run folder> names every error)`,
    ]);
    expect(existsSync(path.join(dir, 'reports'))).toBe(false);
  });

  it('negative control: session 1 of the same 2-session run-start is sound to soak check', async () => {
    const r = await soak('check', runFolder(stamped(at('cycle-start', 3), 1, 2)));
    expect(r.stdout).not.toContain('journal damaged');
    expect(r.exitCode, describeResult(r)).not.toBe(3);
  });
});
