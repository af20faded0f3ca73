// One runner per run folder, end to end with real `soak` processes (issue 30, item 3 and its done-when): `--resume` of
// a run whose runner is alive exits 3 naming that runner's PID and how to stop it, and appends nothing; after the
// runner is SIGKILLed, two `--resume`s started at once race for its stale lock: exactly one runs, the other exits 3
// naming the winner; `kill -TERM <pid>` as the message says stops the winner after its cycle; a last resume finishes.
// Readers (merge, report) read the folder meanwhile without the lock, which ends up in neither of their outputs.
// The journal then holds each planned cycle once, and `soak check` finds it sound. Every step waits for what the
// journal or a process shows, never for a fixed time. Size: 8 cycles of 1.5 s of work each, so each runner is
// still running while the next step acts on it.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execaNode, type Result, type ResultPromise } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { RUN_LOCK_FILE } from '../../harness/run/run-lock.js';
import { cliPath } from '../helpers/paths.js';
import { describeResult } from '../helpers/cli.js';
import { journalSoFar, untilWhileRunning } from '../helpers/live-soak.js';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'soak-trust-run-lock-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const CYCLES = 8;
const scenario = path.join(tmp, 'lock.yaml');
writeFileSync(
  scenario,
  [
    'name: trust-run-lock',
    'target: process',
    `cycles: ${CYCLES}`,
    'bootSamples: 0',
    'seed: 4',
    'kill:',
    '  phases: { work: 1, checkpoint: 0, restore: 0 }',
    '  workDelayMs: [1500, 1500]',
    '',
  ].join('\n'),
);

// forceKillAfterDelay off: execa follows a kill() with a SIGKILL 5 s later, and a loaded machine's soak may take longer
// than that to end its cycle after a SIGTERM (seen in a CI run at load average 27: exit undefined)
const soak = (...args: string[]): ResultPromise =>
  execaNode(cliPath, args, {
    cwd: tmp,
    reject: false,
    timeout: 300_000,
    stdin: 'ignore',
    env: { CI: '1' },
    forceKillAfterDelay: false,
  });

const outcomes = (dir: string): number[] => journalSoFar(dir).flatMap((e) => (e.type === 'cycle' ? [e.cycle] : []));

/** The one stderr line that refuses the run folder, naming `pid`. */
function refusal(r: Result, pid: number): string {
  expect(r.exitCode, describeResult(r)).toBe(3);
  const lines = String(r.stderr)
    .split('\n')
    .filter((l) => l.includes('is in use by a live runner'));
  expect(lines, describeResult(r)).toHaveLength(1);
  expect(lines[0]).toContain(`PID ${pid} (`);
  expect(lines[0]).toContain(`kill -TERM ${pid}`);
  expect(String(r.stderr)).not.toMatch(/\n\s+at /);
  return lines[0]!;
}

describe.concurrent('one runner per run folder (real soak processes)', () => {
  it('refuses a resume beside a live runner, lets one of two racing resumes take a dead runner over', async () => {
    const runs = path.join(tmp, 'runs');
    const first = soak('run', '--scenario', scenario, '--out', runs, '--no-report');
    const dirOf = (): string | null => {
      const d = existsSync(runs) ? readdirSync(runs).find((x) => x !== 'latest') : undefined;
      return d === undefined ? null : path.join(runs, d);
    };
    await untilWhileRunning(() => dirOf() !== null && outcomes(dirOf()!).length >= 1, first, 'a first cycle');
    const dir = dirOf()!;

    // 1. The runner is alive: a resume is refused and appends nothing.
    const beside = await soak('run', '--resume', dir, '--no-report');
    refusal(beside, first.pid!);
    expect(journalSoFar(dir).some((e) => e.type === 'run-resume')).toBe(false);

    // 2. SIGKILL the runner: its lock stays behind, stale.
    first.kill('SIGKILL');
    await first;
    expect(JSON.parse(readFileSync(path.join(dir, RUN_LOCK_FILE), 'utf8'))).toMatchObject({ pid: first.pid });
    // Readers take no lock, and the lock goes into neither a merged folder nor a report.
    const merged = path.join(tmp, 'merged');
    const merge = await soak('merge', dir, '--out', merged);
    expect(merge.exitCode, describeResult(merge)).toBe(0);
    expect(readdirSync(merged)).toEqual(['journal.ndjson']);
    const report = await soak('report', dir, '--out', path.join(tmp, 'reports'), '--json');
    expect([0, 1, 2], describeResult(report)).toContain(report.exitCode);
    const reportDir = (JSON.parse(String(report.stdout)) as { dir: string }).dir;
    expect(readdirSync(reportDir).filter((f) => f.includes('lock'))).toEqual([]);

    // 3. Two resumes at once: one takes the stale lock over and runs, the other is refused naming it.
    const resume = (): ResultPromise => soak('run', '--resume', dir, '--no-report', '--no-judge');
    const racers = [resume(), resume()];
    const loser = await Promise.race(racers.map((p, i) => p.then(() => i)));
    const winner = racers[1 - loser]!;
    refusal(await racers[loser]!, winner.pid!);
    // the loser may be refused before the winner has journaled its resume: wait for it, then count
    const resumes = (): number => journalSoFar(dir).filter((e) => e.type === 'run-resume').length;
    await untilWhileRunning(() => resumes() >= 1, winner, "the winner's run-resume");
    expect(resumes()).toBe(1);

    // 4. Stop the winner as the message says; it ends its cycle and journals run-end 'interrupted'.
    const before = outcomes(dir).length;
    await untilWhileRunning(() => outcomes(dir).length > before, winner, 'a cycle of the winner');
    winner.kill('SIGTERM');
    const stopped = await winner;
    expect(stopped.exitCode, describeResult(stopped)).toBe(0);
    expect(journalSoFar(dir).at(-1)).toMatchObject({ type: 'run-end', status: 'interrupted' });
    expect(existsSync(path.join(dir, RUN_LOCK_FILE))).toBe(false);

    // 5. A last resume finishes the run: every planned cycle exactly once, and the journal is sound.
    const last = await resume();
    expect(last.exitCode, describeResult(last)).toBe(0);
    const ids = outcomes(dir);
    expect(ids).toHaveLength(CYCLES);
    expect([...ids].sort((a, b) => a - b)).toEqual(Array.from({ length: CYCLES }, (_, i) => i + 1));
    expect(journalSoFar(dir).filter((e) => e.type === 'run-resume')).toHaveLength(2);
    expect(existsSync(path.join(dir, RUN_LOCK_FILE))).toBe(false);
    const check = await soak('check', dir);
    expect(check.exitCode, describeResult(check)).toBe(0);
  }, 600_000);

  it('soak demo holds its run folder: a resume of it is refused naming the demo; SIGTERM ends it and frees it', async () => {
    const demo = execaNode(cliPath, ['demo', '--out', 'demo-runs'], { cwd: tmp, reject: false, env: { CI: '1' } });
    let out = '';
    demo.stdout.on('data', (d: Buffer) => (out += d.toString()));
    await untilWhileRunning(() => /^open: \S+$/m.test(out), demo, 'the demo page');
    const dir = /run folder (\S+)/.exec(out)?.[1] ?? '';
    expect(JSON.parse(readFileSync(path.join(dir, RUN_LOCK_FILE), 'utf8'))).toMatchObject({
      pid: demo.pid,
      purpose: 'soak demo',
    });
    refusal(await soak('run', '--resume', dir, '--no-report'), demo.pid!);
    demo.kill('SIGTERM');
    const ended = await demo;
    expect(ended.exitCode, describeResult(ended)).toBe(0);
    expect(journalSoFar(dir).at(-1)).toMatchObject({ type: 'run-end' });
    expect(journalSoFar(dir).some((e) => e.type === 'run-resume')).toBe(false);
    expect(existsSync(path.join(dir, RUN_LOCK_FILE))).toBe(false);
  }, 300_000);
});
