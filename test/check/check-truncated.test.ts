// `soak check` on journals cut short, as a hostile user hands them over: one line on stderr, no stack trace, and the
// documented exit code: no run-start (empty, or torn inside it) is bad input (3), like analysis says; a journal torn
// after its run-start re-checks what it has.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliPath, fixturePath } from '../helpers/paths.js';
import { describeResult, soakIn } from '../helpers/cli.js';

let tmp: string;
const soak = soakIn(() => tmp, 60_000);
const journal = readFileSync(path.join(fixturePath('journals/process-default'), 'journal.ndjson'), 'utf8');

function runWith(name: string, text: string): string {
  const dir = path.join(tmp, name);
  mkdirSync(dir);
  writeFileSync(path.join(dir, 'journal.ndjson'), text);
  return dir;
}

beforeAll(() => {
  if (!existsSync(cliPath)) throw new Error(`${cliPath} is missing: build first (npm run build)`);
  tmp = mkdtempSync(path.join(os.tmpdir(), 'soak-check-truncated-'));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('soak check on a truncated journal', () => {
  it.each([
    ['empty', ''],
    ['torn inside its run-start', journal.slice(0, 150)],
  ])('%s: bad input, exit 3, one line naming the journal', async (name, text) => {
    const dir = runWith(name.replace(/ /g, '-'), text);
    const r = await soak('check', dir);
    expect(r.exitCode, describeResult(r)).toBe(3);
    const err = r.stderr.trimEnd().split('\n');
    expect(err).toEqual([expect.stringMatching(/^soak: journal .*journal\.ndjson has no run-start event/)]);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it('torn after its run-start: what is there is judged (this fixture journaled a failed cycle: exit 1), the torn line named', async () => {
    const cut = journal.indexOf('\n', journal.indexOf('"type":"cycle"')) + 40; // inside the line after the first outcome
    const r = await soak('check', runWith('torn-later', journal.slice(0, cut)));
    expect(r.exitCode, describeResult(r)).toBe(1);
    expect(r.stdout).toContain('the run journaled 1 failed cycles');
    expect(r.stderr.trimEnd()).toBe("soak: the journal's torn last line was dropped");
  });
});
