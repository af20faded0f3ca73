// End to end, `soak run --sessions 3` on the process target (issue 36): three sessions at once, every session's cycles
// journaled with its session and judged, one report with a per-session table; the negative control plants a skewed
// checkpoint in session 1 only (SOAK_TEST_SKEW_SESSION, test-only) and the verdict and report name that session while
// the others stay clean. Bad values of the field and flag and other targets are refused in one line, exit 3; --resume
// of a finished run runs nothing again (a runner killed mid-run: resume-sessions.test.ts); two shards merge into one
// run of 2 sessions, each (session, cycle) once, and runs of different numbers of sessions are refused.
import { existsSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Summary } from '../../harness/analysis/summary.js';
import type { CycleEvent, JournalEvent } from '../../harness/journal/events.js';
import { describeResult, outputLines, runSoak, soakIn, type SoakResult } from '../helpers/cli.js';
import { expectOnlyTimingFailures, gatesJson } from '../helpers/gates.js';
import { exactlyOnceIssues } from '../helpers/exactly-once.js';

let tmp: string;
const soak = soakIn(() => tmp, 600_000);

interface SessionRun {
  result: SoakResult;
  runDir: string;
  events: JournalEvent[];
  summary: Summary;
  markdown: string;
  html: string;
}

/** `soak run --sessions 3 --cycles 3` into its own folders under tmp, `env` added; its run folder read back. */
async function runThree(name: string, env: Record<string, string> = {}): Promise<SessionRun> {
  const out = path.join(tmp, name);
  const args = ['run', '--sessions', '3', '--cycles', '3', '--boot-samples', '0', '--out', path.join(out, 'runs')];
  const result = await runSoak([...args, '--report-dir', path.join(out, 'reports')], {
    cwd: tmp,
    timeoutMs: 600_000,
    env,
  });
  const runDir = path.join(out, 'runs', readlinkSync(path.join(out, 'runs', 'latest')));
  const events = readFileSync(path.join(runDir, 'journal.ndjson'), 'utf8')
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l) as JournalEvent);
  const reportLine = outputLines(result.stdout).find((l) => l.startsWith('report: '));
  const reportDir = path.dirname(reportLine!.slice('report: '.length));
  const summary = JSON.parse(readFileSync(path.join(reportDir, 'summary.json'), 'utf8')) as Summary;
  const read = (f: string): string => readFileSync(path.join(reportDir, f), 'utf8');
  return { result, runDir, events, summary, markdown: read('summary.md'), html: read('index.html') };
}

beforeAll(() => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'soak-e2e-sessions-'));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('soak run --sessions 3 (process target)', () => {
  let good: SessionRun;
  let bad: SessionRun;

  beforeAll(async () => {
    [good, bad] = await Promise.all([runThree('good'), runThree('bad', { SOAK_TEST_SKEW_SESSION: '1' })]);
  }, 900_000);

  it("journals every session's cycles with its session, each judged once", () => {
    const outcomes = good.events.filter((e): e is CycleEvent => e.type === 'cycle');
    const keys = outcomes.map((e) => `${e.session ?? 0}:${e.cycle}`).sort();
    expect(keys, describeResult(good.result)).toEqual(['0:1', '0:2', '0:3', '1:1', '1:2', '1:3', '2:1', '2:2', '2:3']);
    expect(outcomes.every((e) => e.session !== 0)).toBe(true); // session 0 writes no field, as a one-session run
    expect(
      outcomes.every((e) => e.outcome === 'ok'),
      describeResult(good.result),
    ).toBe(true);
    const starts = good.events.filter((e) => e.type === 'cycle-start').map((e) => e.session ?? 0);
    expect([0, 1, 2].map((s) => starts.filter((x) => x === s).length)).toEqual([3, 3, 3]);
    expect(good.events.filter((e) => e.type === 'run-end')).toHaveLength(1);
    for (const s of [0, 1, 2]) expect(existsSync(path.join(good.runDir, 'sessions', String(s), 'store'))).toBe(true);
  });

  it('reports each session beside the pooled figures, with the dedup pooled and per session', () => {
    const s = good.summary;
    expect(s.cycles.total).toBe(9);
    expect(s.sessions?.rows.map((r) => [r.session, r.cycles.total, r.cycles.resumed, r.violations])).toEqual([
      [0, 3, 3, 0],
      [1, 3, 3, 0],
      [2, 3, 3, 0],
    ]);
    expect(s.sessions?.rows[0]?.seed).toBe(s.seed); // session 0 keeps the scenario's seed: today's plan
    expect(new Set(s.sessions?.rows.map((r) => r.seed)).size).toBe(3);
    expect(s.sessions?.dedup.pooledRatio).toBe(s.dedup.ratio);
    expect(s.sessions?.dedup.meanSessionRatio).toBeGreaterThan(1);
    // what stores of their own would hold: recorded at run-end, at least one session's share of the shared store
    expect(s.sessions?.dedup.apartBytes).toBeGreaterThan(s.dedup.storedBytes / 3);
    expect(s.sessions?.dedup.sharedSaving).toBeCloseTo(s.sessions!.dedup.apartBytes! / s.dedup.storedBytes, 6);
    expect(good.markdown).toMatch(/The same checkpoints in a store per session would hold [\d.]+ [KMG]?i?B/);
    // a pooled rate is judged at its effective n (clustered by session), and the report says how
    expect(good.result.stdout).toMatch(/clustered by session \(3 with trials; [^)]+\): judged at effective n \d+ of 9/);
    expect(good.markdown).toMatch(/Korn (&|&amp;|\\&) Graubard 1998/);
    expect(good.markdown).toContain('Run complete: 9 of 9 planned cycles'); // 3 cycles in each of 3 sessions
    expect(good.markdown).toContain('## Sessions');
    expect(good.markdown).toMatch(/\| 2 \| \d+ \| 3 \| 3 \| 0 \| 0 \|/);
    expect(good.html).toContain('<h2 id="sessions">Sessions</h2>');
    expect(good.html).toMatch(/<tr><td>2<\/td><td>\d+<\/td><td>3<\/td><td>3<\/td><td>0<\/td>/);
  });

  it('soak check re-judges every session (clean: exit 0; session 1 skewed: exit 1)', async () => {
    const clean = await soak('check', good.runDir);
    expect(clean.exitCode, describeResult(clean)).toBe(0);
    expect(clean.stdout).toMatch(/\b9\b/); // 9 cycles re-checked, none taken for another session's
    const skewed = await soak('check', bad.runDir);
    expect(skewed.exitCode, describeResult(skewed)).toBe(1);
  });

  it('soak merge of two shards of a 2-session soak: one run of 2 sessions, each (session, cycle) once, check passes', async () => {
    const shard = (i: number) =>
      soak(
        'run',
        '--sessions',
        '2',
        '--cycles',
        '4',
        '--shard',
        `${i}/2`,
        '--boot-samples',
        '0',
        '--no-report',
        '--out',
        path.join(tmp, 'shards'),
      );
    const ran = await Promise.all([shard(0), shard(1)]);
    for (const r of ran) expect([0, 1, 2], describeResult(r)).toContain(r.exitCode);
    const dirs = readdirSync(path.join(tmp, 'shards'))
      .filter((d) => d !== 'latest')
      .map((d) => path.join(tmp, 'shards', d));
    const out = path.join(tmp, 'merged-shards');
    const merged = await soak('merge', ...dirs, '--out', out);
    expect(merged.exitCode, describeResult(merged)).toBe(0);
    const events = readFileSync(path.join(out, 'journal.ndjson'), 'utf8')
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as JournalEvent);
    expect(events[0]).toMatchObject({ type: 'run-start', scenario: { sessions: 2, cycles: 4 } });
    expect(exactlyOnceIssues(events)).toEqual([]);
    const check = await soak('check', out);
    expect(check.exitCode, describeResult(check)).toBe(0);
    expect(check.stdout).toContain('re-checked 8 of 8 cycles');
    const report = await soak('report', out, '--out', path.join(tmp, 'merged-reports'), '--json');
    expect([0, 1, 2], describeResult(report)).toContain(report.exitCode);
    const dir = (JSON.parse(report.stdout) as { dir: string }).dir;
    const summary = JSON.parse(readFileSync(path.join(dir, 'summary.json'), 'utf8')) as Summary;
    const rows = summary.sessions?.rows ?? [];
    expect(rows.map((r) => r.cycles.total)).toEqual([4, 4]);
    // each session's dedup is its own checkpoints' (not the sources' store tally of every session, the pooled one)
    for (const r of rows) expect(r.dedup.logicalBytes).toBeLessThan(summary.dedup.logicalBytes);
    // runs of different numbers of sessions are refused in one line (exit 3), nothing written
    const mixed = await soak('merge', dirs[0]!, good.runDir, '--out', path.join(tmp, 'merged-mixed'));
    expect(mixed.exitCode, describeResult(mixed)).toBe(3);
    expect(mixed.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(mixed.stderr).toMatch(
      /ran 2 session\(s\) at once, .* ran 3: only runs of the same number of sessions merge/,
    );
    expect(existsSync(path.join(tmp, 'merged-mixed'))).toBe(false);
  });

  it('--resume of a finished run of several sessions runs no cycle again (each still judged once)', async () => {
    const r = await soak('run', '--resume', good.runDir, '--no-report');
    await expectOnlyTimingFailures(r.exitCode, good.runDir, describeResult(r));
    const events = readFileSync(path.join(good.runDir, 'journal.ndjson'), 'utf8')
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as JournalEvent);
    expect(events.filter((e) => e.type === 'run-resume')).toMatchObject([{ remaining: 0 }]);
    expect(exactlyOnceIssues(events)).toEqual([]);
  });

  it('negative control: a skewed checkpoint in session 1 only is found there, and the verdict fails (exit 1)', async () => {
    const rows = bad.summary.sessions?.rows ?? [];
    expect(
      rows.map((r) => r.violations > 0),
      describeResult(bad.result),
    ).toEqual([false, true, false]);
    expect(bad.result.exitCode, describeResult(bad.result)).toBe(1);
    expect(bad.markdown).toMatch(/- session 1: /);
    const gates = await gatesJson([bad.runDir]);
    const atomicity = gates.gates.find((g) => g.id === 2);
    expect(atomicity?.verdict).toBe('fail');
  });
});

describe('one session aborting', () => {
  it('stops no other: they run every cycle, the run ends aborted naming the session (exit 4)', async () => {
    const out = path.join(tmp, 'abort');
    const args = ['run', '--sessions', '3', '--cycles', '2', '--boot-samples', '0', '--out', out, '--no-report'];
    const r = await runSoak(args, { cwd: tmp, timeoutMs: 600_000, env: { SOAK_TEST_ABORT_SESSION: '1' } });
    expect(r.exitCode, describeResult(r)).toBe(4);
    const runDir = path.join(out, readlinkSync(path.join(out, 'latest')));
    const events = readFileSync(path.join(runDir, 'journal.ndjson'), 'utf8')
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as JournalEvent);
    const done = events.filter((e): e is CycleEvent => e.type === 'cycle').map((e) => `${e.session ?? 0}:${e.cycle}`);
    expect(done.sort(), describeResult(r)).toEqual(['0:1', '0:2', '1:1', '2:1', '2:2']);
    const ends = events.filter((e) => e.type === 'run-end');
    expect(ends).toHaveLength(1);
    expect(ends[0]).toMatchObject({ status: 'aborted', cycles: 5 });
    expect((ends[0] as { reason?: string }).reason).toMatch(/^session 1: injected abort/);
  });
});

describe('bad input', () => {
  // the field's bounds as every scenario field's (the file, then the field named by its flag), two lines
  it.each([
    [['--sessions', '0'], /--sessions \(overrides sessions\): .*>=1/],
    [['--sessions', '65'], /--sessions \(overrides sessions\): .*<=64/],
    [['--sessions', '2.5'], /--sessions \(overrides sessions\): .*expected int/],
  ])('soak run %j exits 3 naming the flag, nothing written', async (flags, message) => {
    const out = path.join(tmp, `bad-${flags.join('')}`);
    const r = await soak('run', ...flags, '--cycles', '1', '--out', out);
    expect(r.exitCode, describeResult(r)).toBe(3);
    expect(outputLines(r.stderr), describeResult(r)).toHaveLength(2);
    expect(r.stderr).toMatch(message);
    expect(existsSync(out)).toBe(false);
  });

  // what cannot run with many sessions yet: one line naming the scenario file
  it.each([
    [['--scenario', 'exec-example'], 'exec-example.yaml: sessions: 2: target "exec" runs one session at a time'],
    [['--scenario', 'power-loss'], 'power-loss.yaml: sessions: 2: fault "power-loss" runs with one session only'],
    [['--scenario', 'freeze'], 'freeze.yaml: sessions: 2: fault "freeze" runs with one session only'],
  ])('soak run --sessions 2 %j exits 3 in one line, nothing written', async (flags, message) => {
    const out = path.join(tmp, `refused-${flags.join('')}`);
    const r = await soak('run', '--sessions', '2', ...flags, '--cycles', '1', '--out', out);
    expect(r.exitCode, describeResult(r)).toBe(3);
    expect(outputLines(r.stderr), describeResult(r)).toHaveLength(1);
    expect(r.stderr).toContain(message);
    expect(existsSync(out)).toBe(false);
  });

  it('a scenario file with sessions: 100 is refused naming the file and field (exit 3)', async () => {
    const file = path.join(tmp, 'many.yaml');
    writeFileSync(file, 'name: many\nsessions: 100\n');
    const r = await soak('run', '--scenario', file, '--out', path.join(tmp, 'many-out'));
    expect(r.exitCode, describeResult(r)).toBe(3);
    expect(r.stderr).toContain(file);
    expect(r.stderr).toMatch(/sessions/);
  });
});
