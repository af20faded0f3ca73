// A damaged journal through the real CLI (issue 30, item 4 and its done-when): a real journal with an event before its
// run-start, a cycle's outcome journaled twice and a line after its run-end. `soak check` names each error with its
// line (exit 3: no verdict on the system under test); `soak report` and `soak gates` refuse it (exit 3, the first error
// named, no report written) instead of counting "7 of 6 planned cycles"; `soak merge` and `soak run --resume` refuse
// it and append nothing. The negative control: the same journal unchanged is reported as 6 of 6.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { fixtureText, scratchRunFolders } from '../helpers/journals.js';
import { describeResult, soakIn } from '../helpers/cli.js';

const runFolder = scratchRunFolders('soak-check-protocol-');
const cwd = path.dirname(runFolder(''));
const soak = soakIn(() => cwd, 120_000);

const lines = fixtureText('process-default').trimEnd().split('\n'); // 49 lines: run-start ... 6 cycles ... run-end
const lineOf = (type: string, cycle?: number): number =>
  1 +
  lines.findIndex((l) => l.includes(`"type":"${type}"`) && (cycle === undefined || l.includes(`"cycle":${cycle},`)));

/** The fixture with a cycle-start before its run-start, cycle 1's outcome twice and a cycle 7 after its run-end. */
function damaged(): { text: string; before: number; first: number; again: number; end: number; after: number } {
  const out = [...lines];
  const one = lineOf('cycle', 1) - 1;
  out.splice(one + 1, 0, lines[one]!); // the same outcome again, same time
  out.push(lines[lineOf('cycle', 6) - 1]!.replace('"cycle":6,', '"cycle":7,').replace(/"t":[0-9.]+/, '"t":9999'));
  out.unshift('{"schemaVersion":1,"t":0,"type":"cycle-start","cycle":1,"phase":"work"}');
  const end = 1 + out.findIndex((l) => l.includes('"type":"run-end"'));
  return { text: `${out.join('\n')}\n`, before: 1, first: one + 2, again: one + 3, end, after: out.length };
}

describe.concurrent('a damaged journal', () => {
  it('soak check names each error with its line, exit 3', async () => {
    const d = damaged();
    const r = await soak('check', runFolder(d.text));
    expect(r.exitCode, describeResult(r)).toBe(3);
    const out = r.stdout.split('\n');
    expect(out[0]).toBe('journal damaged: 3 protocol errors; nothing from line 1 on is re-checked or counted');
    expect(out).toContain(
      `line ${d.before}: before-run-start: a cycle-start event before the journal's run-start (a journal starts with its run-start)`,
    );
    expect(out).toContain(
      `line ${d.again}: cycle-repeated: cycle 1's outcome journaled again (first at line ${d.first}): two runners on one run folder?`,
    );
    expect(out).toContain(
      `line ${d.after}: after-run-end: a cycle event after the run-end at line ${d.end} with no run-resume between (written after its runner ended: two runners on one run folder?)`,
    );
    expect(out).toContain('verdict: JOURNAL DAMAGED (no verdict on the system under test; exit 3)');
    const json = await soak('check', runFolder(d.text), '--json');
    expect(json.exitCode).toBe(3);
    const parsed = JSON.parse(json.stdout) as { journalErrors: { line: number; code: string }[] };
    expect(parsed.journalErrors.map((e) => `${e.line} ${e.code}`)).toEqual([
      `${d.before} before-run-start`,
      `${d.again} cycle-repeated`,
      `${d.after} after-run-end`,
    ]);
  });

  it('soak report and soak gates refuse it (exit 3, the first error named), no report written', async () => {
    const dir = runFolder(damaged().text);
    const report = await soak('report', dir, '--out', path.join(dir, 'reports'));
    expect(report.exitCode, describeResult(report)).toBe(3);
    expect(report.stderr).toContain('is damaged: line 1: before-run-start:');
    expect(report.stderr).toContain('3 errors in all; nothing from it is analysed');
    expect(existsSync(path.join(dir, 'reports'))).toBe(false);
    const gates = await soak('gates', dir);
    expect(gates.exitCode, describeResult(gates)).toBe(3);
    expect(gates.stdout).toBe('');
  });

  it('lines after run-end alone: refused, never "7 of 6 planned"; the journal unchanged says 6 of 6', async () => {
    const extra = [...lines, lines[lineOf('cycle', 6) - 1]!.replace('"cycle":6,', '"cycle":7,')];
    const r = await soak('report', runFolder(`${extra.join('\n')}\n`), '--out', 'reports-extra', '--json');
    expect(r.exitCode, describeResult(r)).toBe(3);
    expect(r.stderr).toContain(`line ${extra.length}: after-run-end:`);
    const clean = runFolder(`${lines.join('\n')}\n`);
    const ok = await soak('report', clean, '--out', path.join(clean, 'reports'), '--json');
    expect([0, 1, 2], describeResult(ok)).toContain(ok.exitCode);
    const dir = (JSON.parse(ok.stdout) as { dir: string }).dir;
    expect(readFileSync(path.join(dir, 'summary.md'), 'utf8').split('\n')[0]).toBe(
      '**Run complete: 6 of 6 planned cycles.**',
    );
  });

  it('soak merge and soak run --resume refuse it and write nothing', async () => {
    const text = damaged().text;
    const dir = runFolder(text);
    const merge = await soak('merge', dir, runFolder(fixtureText('process-resumed')), '--out', path.join(dir, 'm'));
    expect(merge.exitCode, describeResult(merge)).toBe(3);
    expect(merge.stderr).toContain('is damaged: line 1');
    expect(existsSync(path.join(dir, 'm'))).toBe(false);
    const resume = await soak('run', '--resume', dir, '--no-report');
    expect(resume.exitCode, describeResult(resume)).toBe(3);
    expect(resume.stderr).toContain('is damaged: line 1');
    expect(readFileSync(path.join(dir, 'journal.ndjson'), 'utf8')).toBe(text);
  });
});
