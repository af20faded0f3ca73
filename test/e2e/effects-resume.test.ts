// The effect ledger survives its runner's SIGKILL (issue 34, done-when: "killing the runner mid-run and --resume loses
// no acknowledged effect from the ledger, a test with real SIGKILLs"; "a corrupt or missing ledger file is a clear
// error naming the file"). A real soak with effects is SIGKILLed twice mid-run and resumed: every row the ledger held
// at a kill is still there after, every effect the final session holds as acknowledged (workspace/effects.txt) is a
// committed row, and no accounting found a lost effect. Between the kills, --resume with the ledger file missing,
// then with its bytes damaged, exits 3 with one line naming the file and journals nothing; so does `soak report`
// of the finished run with its ledger missing. Negative control: the
// accounting finds the loss once an acknowledged row is deleted from a copy of the ledger. Every step waits for what
// the journal shows, never for a fixed time. Size: 8 cycles of 0.6 s of work, so each runner is killed mid-run.
import { existsSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { execaNode, type ResultPromise } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { accountEffects } from '../../harness/effects/accounting.js';
import { LedgerDb, LEDGER_FILE } from '../../harness/effects/ledger-db.js';
import { cliPath } from '../helpers/paths.js';
import { describeResult } from '../helpers/cli.js';
import { journalSoFar, untilWhileRunning } from '../helpers/live-soak.js';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'soak-effects-resume-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const CYCLES = 8;
const scenario = path.join(tmp, 'effects.yaml');
writeFileSync(
  scenario,
  [
    'name: effects-resume',
    'target: process',
    `cycles: ${CYCLES}`,
    'seed: 7',
    'kill:',
    '  phases: { work: 1, checkpoint: 0, restore: 0 }',
    '  workDelayMs: [600, 600]',
    'effects: { everySteps: 3 }',
    '',
  ].join('\n'),
);

const soak = (...args: string[]): ResultPromise =>
  execaNode(cliPath, args, { cwd: tmp, reject: false, timeout: 300_000, stdin: 'ignore', env: { CI: '1' } });

const accountings = (dir: string) => journalSoFar(dir).flatMap((e) => (e.type === 'effects' ? [e] : []));

/** The ledger's rows, read from the file as it is on disk. */
function ledgerRowsFull(file: string) {
  const db = LedgerDb.open(file, { readonly: true });
  try {
    return db.rows();
  } finally {
    db.close();
  }
}
/** The ledger's rows as "seq session effect applied". */
const ledgerRows = (file: string): string[] =>
  ledgerRowsFull(file).map((r) => `${r.seq} ${r.session} ${r.effect} ${r.applied}`);

/** --resume refused because of the ledger: exit 3, one line naming the file, nothing journaled. */
async function refusedResume(dir: string, file: string, why: string): Promise<void> {
  const lines = readFileSync(path.join(dir, 'journal.ndjson'), 'utf8');
  const r = await soak('run', '--resume', dir, '--no-report');
  expect(r.exitCode, describeResult(r)).toBe(3);
  const said = String(r.stderr)
    .split('\n')
    .filter((l) => l.includes(`effect ledger ${file} ${why}`));
  expect(said, describeResult(r)).toHaveLength(1);
  expect(String(r.stderr)).not.toMatch(/\n\s+at /);
  expect(readFileSync(path.join(dir, 'journal.ndjson'), 'utf8')).toBe(lines);
}

describe('the effect ledger across runner SIGKILLs (real soak processes)', () => {
  it('loses no acknowledged effect; a missing or damaged ledger stops --resume naming the file', async () => {
    const runs = path.join(tmp, 'runs');
    let runner = soak('run', '--scenario', scenario, '--out', runs, '--no-report');
    const dirOf = (): string | null => {
      const d = existsSync(runs) ? readdirSync(runs).find((x) => x !== 'latest') : undefined;
      return d === undefined ? null : path.join(runs, d);
    };
    await untilWhileRunning(() => dirOf() !== null && accountings(dirOf()!).length >= 1, runner, 'a first accounting');
    const dir = dirOf()!;
    const file = path.join(dir, LEDGER_FILE);
    for (let kill = 1; kill <= 2; kill++) {
      const seen = accountings(dir).length;
      await untilWhileRunning(() => accountings(dir).length > seen, runner, `an accounting before kill ${kill}`);
      runner.kill('SIGKILL');
      await runner;
      const before = ledgerRows(file);
      expect(before.length).toBeGreaterThan(0);
      if (kill === 1) {
        renameSync(file, `${file}.away`);
        await refusedResume(dir, file, 'is missing');
        renameSync(`${file}.away`, file);
      } else {
        const bytes = readFileSync(file);
        writeFileSync(file, Buffer.concat([Buffer.from('garbage'.repeat(20)), bytes.subarray(140)]));
        await refusedResume(dir, file, 'is damaged');
        writeFileSync(file, bytes);
      }
      runner = soak('run', '--resume', dir, '--no-report');
      await untilWhileRunning(
        () =>
          journalSoFar(dir).some(
            (e, i, all) => e.type === 'run-resume' && all.slice(i).some((x) => x.type === 'effects'),
          ),
        runner,
        'an accounting after the resume',
      );
      // every row committed before the kill is still there, unchanged
      expect(ledgerRows(file).slice(0, before.length)).toEqual(before);
    }
    const last = await runner;
    expect(last.exitCode, describeResult(last)).not.toBe(3);
    expect(last.exitCode, describeResult(last)).toBeLessThan(3);
    const all = accountings(dir);
    expect(all.length).toBeGreaterThanOrEqual(CYCLES);
    for (const a of all) for (const c of Object.values(a.disciplines)) expect(c.lost, JSON.stringify(a)).toBe(0);
    const total = (k: 'duplicates' | 'first') => (d: 'step-key' | 'random-key' | 'no-key') =>
      all.reduce((s, a) => s + a.disciplines[d][k], 0);
    expect(total('duplicates')('step-key')).toBe(0);
    expect(total('first')('step-key')).toBeGreaterThan(0);

    // what the final session holds as acknowledged is committed in the ledger, row for row
    const held = readFileSync(path.join(dir, 'session', 'workspace', 'effects.txt'), 'utf8')
      .trim()
      .split('\n');
    const rows = new Set(
      ledgerRows(file).map((r) =>
        r
          .split(' ')
          .filter((_, i) => i !== 1)
          .slice(0, 2)
          .join(' '),
      ),
    );
    expect(held.length).toBeGreaterThan(0);
    for (const line of held) {
      const [effect, , seq] = line.split(' ');
      expect(rows, line).toContain(`${seq} ${effect}`);
    }

    // a report of the run needs its ledger too: missing, it is one line naming the file (exit 3), and no report
    renameSync(file, `${file}.away`);
    const reports = path.join(tmp, 'reports');
    const report = await soak('report', dir, '--out', reports);
    expect(report.exitCode, describeResult(report)).toBe(3);
    expect(String(report.stderr), describeResult(report)).toContain(`effect ledger ${file} is missing`);
    expect(existsSync(reports)).toBe(false);
    renameSync(`${file}.away`, file);
    const reported = await soak('report', dir, '--out', reports);
    expect(reported.exitCode, describeResult(reported)).toBeLessThan(3);
    expect(readdirSync(reports).length).toBeGreaterThan(0);

    // negative control: delete the rows of one effect the final session holds, and the accounting finds it lost
    const copy = path.join(tmp, 'copy.sqlite');
    const db0 = new Database(file, { readonly: true });
    await db0.backup(copy);
    db0.close();
    const [victim] = held[held.length - 1]!.split(' ');
    const raw = new Database(copy);
    raw.prepare('DELETE FROM requests WHERE effect = ?').run(victim);
    raw.close();
    const ledger = LedgerDb.open(copy, { readonly: true });
    const rowsLeft = ledger.rows();
    ledger.close();
    const session = rowsLeft[0]!.session;
    const through = Number(victim!.split(':')[1]);
    const claim = { through, acked: {}, incarnation: 'nobody' };
    const found = accountEffects(rowsLeft, { session, claim }, { seed: 7, everySteps: 3 });
    const intact = accountEffects(ledgerRowsFull(file), { session, claim }, { seed: 7, everySteps: 3 });
    expect(intact.fields.disciplines[victim!.split(':')[0] as 'no-key'].lost).toBe(0);
    expect(found.fields.disciplines[victim!.split(':')[0] as 'no-key'].lost).toBe(1);
  });
});
