// End to end, `soak run --sessions 4` with host crashes only (issue 36): at each crash every session's host is
// SIGKILLed in one loop (nemesis/crash-barrier.ts) and all resume at once. Every session resumes and verifies,
// `soak check` is clean, the kill instants of one crash all fall between that crash's fault events and the first
// restore any session started (one synchronous loop: no session moved on between two kills), and the time from the
// crash to the last session back is journaled, in summary.json and in the report. Negative control:
// SOAK_TEST_HOST_CRASH_SPARES_SESSION (test-only) makes the loop skip session 2's host; the crash records say 3 of 4
// killed, session 2's crash cycles are indeterminate (cause crash-barrier: the harness's failure, not the runtime's)
// and no time to the last back is claimed.
import { mkdtempSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Summary } from '../../harness/analysis/summary.js';
import type { CycleEvent, HostCrashEvent, JournalEvent } from '../../harness/journal/events.js';
import { HOST_CRASH_SPARES_SESSION } from '../../harness/nemesis/crash-barrier.js';
import { describeResult, outputLines, runSoak, soakIn, type SoakResult } from '../helpers/cli.js';

let tmp: string;
const soak = soakIn(() => tmp, 600_000);

/** The scenario; `hostTimeoutMs` bounds how long a host that outlived the crash is waited for (the control's). */
const scenario = (hostTimeoutMs: number): string =>
  [
    'name: crash-sessions',
    'target: process',
    'cycles: 3',
    'seed: 7',
    'sessions: 4',
    'stepMs: 5',
    'checkpoint: { everyMs: 100 }',
    'kill: { phases: { work: 2, checkpoint: 1, restore: 0 }, workDelayMs: [100, 400], checkpointDelayMs: [0, 3] }',
    'faults: [{ kind: host-crash }]',
    'resumeTimeoutMs: 30000',
    `hostTimeoutMs: ${hostTimeoutMs}`,
    '',
  ].join('\n');

interface CrashRun {
  result: SoakResult;
  runDir: string;
  events: JournalEvent[];
  summary: Summary;
  markdown: string;
  html: string;
}

async function run(name: string, cycles: number, env: Record<string, string> = {}): Promise<CrashRun> {
  const spares = env[HOST_CRASH_SPARES_SESSION] !== undefined;
  const out = path.join(tmp, name);
  const file = path.join(tmp, `${name}.yaml`);
  writeFileSync(file, scenario(spares ? 5000 : 10_000));
  const args = ['run', '--scenario', file, '--cycles', String(cycles), '--boot-samples', '0'];
  const result = await runSoak([...args, '--out', path.join(out, 'runs'), '--report-dir', path.join(out, 'reports')], {
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
  expect(reportLine, describeResult(result)).toBeDefined();
  const reportDir = path.dirname(reportLine!.slice('report: '.length));
  const read = (f: string): string => readFileSync(path.join(reportDir, f), 'utf8');
  const summary = JSON.parse(read('summary.json')) as Summary;
  return { result, runDir, events, summary, markdown: read('summary.md'), html: read('index.html') };
}

const crashes = (events: JournalEvent[]): HostCrashEvent[] =>
  events.filter((e): e is HostCrashEvent => e.type === 'host-crash');
const outcomes = (events: JournalEvent[]): CycleEvent[] => events.filter((e): e is CycleEvent => e.type === 'cycle');

beforeAll(() => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'soak-e2e-host-crash-'));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('host-crash with soak run --sessions 4 (process target)', () => {
  let good: CrashRun;
  let spared: CrashRun;

  beforeAll(async () => {
    [good, spared] = await Promise.all([run('good', 3), run('spared', 2, { [HOST_CRASH_SPARES_SESSION]: '2' })]);
  }, 900_000);

  it('every session resumes and verifies after every crash; soak check is clean', async () => {
    const cycles = outcomes(good.events);
    expect(cycles.map((e) => `${e.session ?? 0}:${e.cycle}:${e.outcome}`).sort(), describeResult(good.result)).toEqual(
      [0, 1, 2, 3].flatMap((s) => [1, 2, 3].map((c) => `${s}:${c}:ok`)),
    );
    const faults = good.events.filter((e) => e.type === 'fault');
    expect(new Set(faults.map((e) => e.kind))).toEqual(new Set(['host-crash']));
    expect(faults).toHaveLength(12);
    const check = await soak('check', good.runDir);
    expect(check.exitCode, describeResult(check)).toBe(0);
  });

  it("one crash's kills come from one loop: after all its faults are journaled, before any session's restore starts", () => {
    for (const cycle of [1, 2, 3]) {
      const of = (type: string): JournalEvent[] =>
        good.events.filter((e) => e.type === type && 'cycle' in e && e.cycle === cycle);
      const kills = of('kill').map((e) => e.t);
      const faults = of('fault').map((e) => e.t);
      const restores = of('host-start')
        .filter((e) => e.type === 'host-start' && e.mode === 'restore')
        .map((e) => e.t);
      const seen = `cycle ${cycle}: ${good.events
        .filter((e) => 'cycle' in e && e.cycle === cycle && e.type !== 'checkpoint')
        .map((e) => `${e.type}@${e.t}/s${e.session ?? 0}`)
        .join(' ')}`;
      expect(kills, seen).toHaveLength(4); // one kill per session
      expect(restores, seen).toHaveLength(4); // one restore per session
      expect(Math.max(...faults), seen).toBeLessThanOrEqual(Math.min(...kills));
      expect(Math.max(...kills), seen).toBeLessThan(Math.min(...restores));
      const crash = crashes(good.events).find((c) => c.cycle === cycle)!;
      // the loop's own spread (its raw kill times; a journaled t is placed on the journal's clock, never before the line
      // above it, so it may differ by the placement): within the window the journal shows between faults and restores
      expect(crash.spreadMs, seen).toBeLessThan(Math.min(...restores) - Math.max(...faults));
    }
  });

  it('journals each crash with the time to the last session back, and reports its distribution with n', () => {
    const all = crashes(good.events);
    expect(all.map((c) => [c.cycle, c.sessions, c.killed, c.back])).toEqual([
      [1, 4, 4, 4],
      [2, 4, 4, 4],
      [3, 4, 4, 4],
    ]);
    for (const c of all) {
      // the last session back: no sooner than the slowest session's own downtime (each measured from its kill)
      const downtimes = outcomes(good.events)
        .filter((e) => e.cycle === c.cycle)
        .map((e) => e.downtimeMs!);
      expect(c.lastBackMs).not.toBeNull();
      expect(c.lastBackMs!).toBeGreaterThanOrEqual(Math.max(...downtimes) - 0.01);
    }
    const h = good.summary.hostCrashes!;
    expect(h).toMatchObject({ crashes: 3, sessions: { min: 4, max: 4 }, everyKilled: 3, everyBack: 3, incomplete: [] });
    expect(h.lastBackMs?.n).toBe(3);
    expect(h.lastBackMs?.max).toBe(Math.max(...all.map((c) => c.lastBackMs!)));
    expect(good.markdown).toContain('## Host crashes');
    expect(good.markdown).toMatch(/Time from the crash to the last session back .*p50 .*p95 .*max .*\(n = 3 crashes/);
    expect(good.html).toContain('<h2 id="host-crashes">Host crashes</h2>');
    // every session's crash is a kill-and-resume trial in the durability table: 12, not the 3 cycle ids
    expect(good.markdown).toMatch(/Tested: host crash .*, n = 12\./);
  });

  it('negative control: a crash that spares session 2 says so, and its cycles are the harness failure they are', () => {
    const all = crashes(spared.events);
    expect(
      all.map((c) => [c.sessions, c.killed, c.back, c.lastBackMs]),
      describeResult(spared.result),
    ).toEqual([
      [4, 3, 3, null],
      [4, 3, 3, null],
    ]);
    const two = outcomes(spared.events).filter((e) => e.session === 2);
    expect(two.map((e) => [e.outcome, e.cause?.code])).toEqual([
      ['indeterminate', 'crash-barrier'],
      ['indeterminate', 'crash-barrier'],
    ]);
    expect(two[0]!.cause!.message).toMatch(/outlived the host crash/);
    expect(outcomes(spared.events).filter((e) => e.session !== 2 && e.outcome === 'ok')).toHaveLength(6);
    expect(spared.summary.hostCrashes).toMatchObject({ everyKilled: 0, everyBack: 0, lastBackMs: null });
    expect(spared.markdown).toMatch(/no crash brought every session back, so none is measured/);
    expect(spared.markdown).toMatch(/Not every session: cycle 1: 3 of 4 sessions killed, 3 back\./);
  });
});
