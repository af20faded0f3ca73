// The CLI side of nightly soaks, end to end with real processes: a shard run with --no-judge exits 0 though a gate
// fails (and `soak gates` on it exits 1), its seed comes from --seed-from, JUnit XML and the job summary are written,
// every --json output validates against schemas/; SIGTERM mid-run ends the run with run-end and a report, a second
// signal aborts with 130, and --resume writes its report where the run was started to. Signals are timed from cycles
// seen in the journal and lines seen on stderr, never from a sleep.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execaNode, type Result, type ResultPromise } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JournalEvent, RunStartEvent } from '../../harness/journal/events.js';
import { parseJournal } from '../../harness/journal/writer.js';
import { seedFromKey } from '../../harness/scenario/shard.js';
import type { OutputName } from '../../harness/report/output-schemas.js';
import { describeResult, soakIn } from '../helpers/cli.js';
import { cliPath } from '../helpers/paths.js';
import { parseJunit } from '../helpers/xml.js';
import { validatorFor } from '../helpers/schemas.js';

let tmp: string;
const soak = soakIn(() => tmp, 600_000);
const TEST_MS = 900_000;
const journalOf = (dir: string): JournalEvent[] =>
  parseJournal(readFileSync(path.join(dir, 'journal.ndjson'), 'utf8'), dir).events;
const cyclesIn = (dir: string | null): number =>
  dir !== null && existsSync(path.join(dir, 'journal.ndjson'))
    ? journalOf(dir).filter((e) => e.type === 'cycle').length
    : 0;
const runIn = (runs: string): string | null => {
  const d = existsSync(runs) ? readdirSync(runs).find((x) => x !== 'latest') : undefined;
  return d === undefined ? null : path.join(runs, d);
};
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Poll (every 50 ms) until `seen()` holds; false if `child` exits first. */
async function until(seen: () => boolean, child: ResultPromise): Promise<boolean> {
  const state = { exited: false };
  void child.finally(() => (state.exited = true));
  while (!seen()) {
    if (state.exited) return false;
    await sleep(50);
  }
  return true;
}

/** Start `soak ...args` in tmp, collecting its stderr as it comes. */
function start(args: string[]): { child: ResultPromise; stderr: () => string } {
  // forceKillAfterDelay off: execa would follow each kill() with a SIGKILL 5 s later
  const child = execaNode(cliPath, args, {
    cwd: tmp,
    reject: false,
    stdin: 'ignore',
    env: { CI: '1' },
    timeout: 600_000,
    forceKillAfterDelay: false,
  });
  let err = '';
  child.stderr.on('data', (b: Buffer) => (err += b.toString()));
  return { child, stderr: () => err };
}

/** Parse a CLI's JSON stdout and check it against its schema. */
function validJson(name: OutputName, r: Result): Record<string, unknown> {
  let data: Record<string, unknown>;
  try {
    data = JSON.parse(r.stdout as string) as Record<string, unknown>;
  } catch {
    throw new Error(`${name}: no JSON on stdout\n${describeResult(r)}`);
  }
  expect(validatorFor(name)(data), `${name} --json against schemas/${name}.schema.json`).toEqual([]);
  expect(data['schemaVersion']).toBe(1);
  return data;
}

beforeAll(() => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'soak-ci-'));
  mkdirSync(path.join(tmp, 'gates-impossible'));
  writeFileSync(
    path.join(tmp, 'gates-impossible', '01-impossible.yaml'),
    'id: 1\ntitle: Impossible dedup\nmetric: dedup\nthreshold: ratio >= 1000000\nminN: 1\n',
  );
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('a nightly shard: --no-judge, --seed-from, --junit, --summary-md, schemas', () => {
  it(
    'exits 0 though its gate fails; soak gates on it exits 1; every output is written and validates',
    async () => {
      const gatesDir = path.join(tmp, 'gates-impossible');
      const r = await soak(
        ...[
          'run',
          '--cycles',
          '6',
          '--boot-samples',
          '0',
          '--shard',
          '1/2',
          '--seed-from',
          '2026-12-01',
          '--no-judge',
          '--json',
        ],
        ...['--gates-dir', gatesDir, '--out', 'runs', '--report-dir', 'reports'],
        ...['--junit', 'ci/run.xml', '--summary-md', 'ci/run.md'],
      );
      expect(r.exitCode, describeResult(r)).toBe(0);
      const run = validJson('run', r);
      expect(run).toMatchObject({ verdict: 'fail', judged: false, status: 'complete' });
      const runDir = String(run['runDir']);
      const start0 = journalOf(runDir)[0] as RunStartEvent;
      expect(start0.seedKey).toBe('2026-12-01');
      expect(start0.scenario.seed).toBe(seedFromKey('2026-12-01', { index: 1, count: 2 }));
      expect(start0.scenario.seed).not.toBe(seedFromKey('2026-12-01', { index: 0, count: 2 }));

      const junit = parseJunit(readFileSync(path.join(tmp, 'ci', 'run.xml'), 'utf8'));
      expect(junit).toMatchObject({ tests: 1, failures: 1, skipped: 0 });
      expect(junit.cases[0]!.failure).toMatch(
        /^fail: measured [\d.,]+, 95% interval –, judged on the ratio, threshold ratio >= [\d,]+x?, n \d+ \(min 1\)/,
      );
      const md = readFileSync(path.join(tmp, 'ci', 'run.md'), 'utf8');
      expect(md).toMatch(/^## ❌ keepstate-soak: default .*FAIL: 1 of 1 gates failed/);
      expect(md).toContain(`Dated report: \`${String(run['reportDir'])}\``);

      const g = await soak(
        'gates',
        runDir,
        '--gates-dir',
        gatesDir,
        '--json',
        '--junit',
        'ci/gates.xml',
        '--summary-md',
        'ci/gates.md',
      );
      expect(g.exitCode, describeResult(g)).toBe(1); // the control: judged, the same run fails
      expect(validJson('gates', g)['verdict']).toBe('fail');
      expect(parseJunit(readFileSync(path.join(tmp, 'ci', 'gates.xml'), 'utf8')).failures).toBe(1);
      expect(readFileSync(path.join(tmp, 'ci', 'gates.md'), 'utf8')).toContain('No report was written.');

      const rep = await soak('report', runDir, '--out', 'reports', '--json');
      const report = validJson('report', rep);
      const summary = JSON.parse(readFileSync(path.join(String(report['dir']), 'summary.json'), 'utf8')) as unknown;
      expect(validatorFor('summary')(summary)).toEqual([]);
      validJson('check', await soak('check', runDir, '--json'));
      validJson('compare', await soak('compare', runDir, runDir, '--json', '--resamples', '9999'));
      validJson('merge', await soak('merge', runDir, '--out', 'merged', '--json'));
      validJson('store-stats', await soak('store', 'stats', path.join(runDir, 'store'), '--json'));
      validJson('store-verify', await soak('store', 'verify', path.join(runDir, 'store'), '--json'));
      validJson('store-gc', await soak('store', 'gc', path.join(runDir, 'store'), '--keep', '1', '--json'));
    },
    TEST_MS,
  );
});

describe('stopping a run from outside', () => {
  it(
    'SIGTERM after the first cycle: the run ends interrupted, journals run-end and writes its report',
    async () => {
      const runs = path.join(tmp, 'runs-term');
      const { child, stderr } = start([
        'run',
        '--cycles',
        '40',
        '--boot-samples',
        '0',
        '--no-judge',
        '--out',
        runs,
        '--report-dir',
        'rep-term',
      ]);
      expect(await until(() => cyclesIn(runIn(runs)) >= 1, child), stderr()).toBe(true);
      child.kill('SIGTERM');
      const t0 = process.hrtime.bigint();
      const r = await child;
      const waitedS = Number(process.hrtime.bigint() - t0) / 1e9;
      expect(r.exitCode, describeResult(r)).toBe(0);
      expect(waitedS).toBeLessThan(300); // one cycle plus the report, however loaded the machine
      const events = journalOf(runIn(runs)!);
      const end = events.at(-1)!;
      expect(end).toMatchObject({ type: 'run-end', status: 'interrupted' });
      expect(events.filter((e) => e.type === 'cycle').length).toBeLessThan(40);
      expect(stderr()).toMatch(/SIGTERM: stopping after the current cycle/);
      const [dated] = readdirSync(path.join(tmp, 'rep-term')).filter((d) => /^\d{4}-/.test(d));
      const summary = JSON.parse(readFileSync(path.join(tmp, 'rep-term', dated!, 'summary.json'), 'utf8')) as {
        runStatus: { status: string };
      };
      expect(summary.runStatus.status).toBe('interrupted');
    },
    TEST_MS,
  );

  it(
    'a second signal aborts with 130; --resume then reports into the --report-dir the run started with',
    async () => {
      const runs = path.join(tmp, 'runs-abort');
      const first = start(['run', '--cycles', '40', '--boot-samples', '0', '--out', runs, '--report-dir', 'rep-first']);
      expect(await until(() => cyclesIn(runIn(runs)) >= 1, first.child), first.stderr()).toBe(true);
      first.child.kill('SIGTERM');
      expect(await until(() => /stopping after the current cycle/.test(first.stderr()), first.child)).toBe(true);
      first.child.kill('SIGINT');
      const r = await first.child;
      expect(r.exitCode, describeResult(r)).toBe(130);
      expect(first.stderr()).toMatch(/SIGINT again: aborting now \(exit 130/);
      expect(existsSync(path.join(tmp, 'rep-first'))).toBe(false); // aborted: no report

      const runDir = runIn(runs)!;
      const done = cyclesIn(runDir);
      const resumed = start(['run', '--resume', runDir, '--no-judge']);
      expect(await until(() => cyclesIn(runDir) > done, resumed.child), resumed.stderr()).toBe(true);
      resumed.child.kill('SIGTERM');
      const rr = await resumed.child;
      expect(rr.exitCode, describeResult(rr)).toBe(0);
      expect(readdirSync(path.join(tmp, 'rep-first')).some((d) => /^\d{4}-\d{2}-\d{2}-default/.test(d))).toBe(true);
      expect(rr.stdout).toContain(`report: ${path.join(tmp, 'rep-first')}`); // not the default reports/
    },
    TEST_MS,
  );
});
