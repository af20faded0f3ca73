// `soak run --resume` of a run of 8 sessions at once whose runner was SIGKILLed mid-run (issue 36's done-when: "killing
// the runner mid-run with 8 sessions and --resume completes every session's cycles exactly once"): every (session,
// cycle) is judged exactly once, none missing, none doubled; a cycle a session was in the middle of is run again from
// its start; `soak check` passes; no process of the run is left. Size: 8 sessions x 6 cycles (the issue asks for 8
// sessions; 6 cycles leave most of them to the resume). The kill is timed from the journal: at least 10 outcomes of at
// least 3 sessions, never from a sleep.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execaNode } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyze } from '../../harness/analysis/analyze.js';
import type { JournalEvent } from '../../harness/journal/events.js';
import { hostGroups, orphanProcesses } from '../../harness/run/orphans.js';
import { describeResult, soakIn } from '../helpers/cli.js';
import { exactlyOnceIssues } from '../helpers/exactly-once.js';
import { expectOnlyTimingFailures } from '../helpers/gates.js';
import { journalSoFar, untilWhileRunning } from '../helpers/live-soak.js';
import { cliPath } from '../helpers/paths.js';

const SESSIONS = 8;
const CYCLES = 6;
let tmp: string;
const soak = soakIn(() => tmp, 600_000);
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const key = (e: { session?: number; cycle: number }): string => `${e.session ?? 0}:${e.cycle}`;

beforeAll(() => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'soak-resume-sessions-'));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe(`soak run --sessions ${SESSIONS}: the runner SIGKILLed mid-run, then --resume`, () => {
  it('judges every (session, cycle) exactly once, reruns the cycles cut off, and soak check passes', async () => {
    const runs = path.join(tmp, 'runs');
    const args = ['run', '--sessions', String(SESSIONS), '--cycles', String(CYCLES), '--boot-samples', '0'];
    const runner = execaNode(cliPath, [...args, '--seed', '3', '--out', runs, '--no-report'], {
      cwd: tmp,
      reject: false,
      stdin: 'ignore',
      env: { CI: '1' },
      timeout: 600_000,
    });
    const runDir = (): string => path.join(runs, readdirSync(runs).find((d) => d !== 'latest') ?? 'none');
    const progress = (): { outcomes: number; sessions: number } => {
      let events: JournalEvent[] = [];
      try {
        events = journalSoFar(runDir());
      } catch {
        // runs/ not made yet
      }
      const outcomes = events.filter((e) => e.type === 'cycle');
      return { outcomes: outcomes.length, sessions: new Set(outcomes.map((e) => e.session ?? 0)).size };
    };
    await untilWhileRunning(
      () => {
        const p = progress();
        return p.outcomes >= 10 && p.sessions >= 3;
      },
      runner,
      'ten outcomes of three sessions',
    );
    runner.kill('SIGKILL');
    const killed = await runner;
    expect(killed.signal, describeResult(killed)).toBe('SIGKILL');
    const dir = runDir();
    const before = journalSoFar(dir);
    expect(before.some((e) => e.type === 'run-end')).toBe(false); // killed mid-run, not after it
    const judged = new Set(before.filter((e) => e.type === 'cycle').map(key));
    const started = new Set(before.filter((e) => e.type === 'cycle-start').map(key));
    const cutOff = [...started].filter((k) => !judged.has(k)); // in the middle of these when the runner died
    expect(judged.size).toBeLessThan(SESSIONS * CYCLES);
    expect(cutOff.length).toBeGreaterThan(0); // 8 sessions at once: some are always inside a cycle

    const resumed = await soak('run', '--resume', dir, '--no-report');
    await expectOnlyTimingFailures(resumed.exitCode, dir, describeResult(resumed));
    const events = readFileSync(path.join(dir, 'journal.ndjson'), 'utf8')
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as JournalEvent);
    expect(exactlyOnceIssues(events)).toEqual([]);
    const resume = events.find((e) => e.type === 'run-resume');
    expect(resume).toMatchObject({ remaining: SESSIONS * CYCLES - judged.size });
    for (const k of cutOff) {
      // its cycle-start journaled again by the resumed runner, its one outcome after that
      const starts = events.filter((e) => e.type === 'cycle-start' && key(e) === k);
      expect(starts.length, k).toBeGreaterThanOrEqual(2);
    }
    const outcomesAfter = events
      .slice(events.indexOf(resume!))
      .filter((e) => e.type === 'cycle')
      .map(key);
    expect(outcomesAfter.filter((k) => judged.has(k))).toEqual([]); // nothing finished before is run again
    expect(events.filter((e) => e.type === 'run-end')).toMatchObject([{ status: 'complete' }]);
    const { summary } = analyze(events); // the analysis counts each (session, cycle) once, pooled and per session
    expect(summary.cycles.total).toBe(SESSIONS * CYCLES);
    expect(summary.sessions?.rows.map((r) => r.cycles.total)).toEqual(Array.from({ length: SESSIONS }, () => CYCLES));

    const check = await soak('check', dir);
    expect(check.exitCode, describeResult(check)).toBe(0);
    expect(check.stdout).toMatch(new RegExp(`re-checked ${SESSIONS * CYCLES} of ${SESSIONS * CYCLES} cycles`));
    const groups = hostGroups(events);
    for (let i = 0; i < 100 && orphanProcesses(groups, dir).length > 0; i++) await sleep(50);
    expect(orphanProcesses(groups, dir)).toEqual([]);
  }, 900_000);
});
