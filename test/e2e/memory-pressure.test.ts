// End to end, memory-pressure with `soak run --sessions N` on the process target (issue 36), real cgroup v1, real OOM
// kills: at each squeeze the kernel's OOM killer picks a victim in the run's memory cgroup; the squeeze journals it
// (its session and pid, limit, usage, time to the kill), the victim's session resumes and is judged, the sessions it
// spared take their own planned SIGKILL (a plain kill cycle), `soak check` passes, the report states the trials, and
// the run's cgroup is gone at run end. Negative controls: with skewed checkpoints (skewMs) the victim's resume fails
// the checker; with the OOM killer disabled in the cgroup (SOAK_TEST_MEMORY_OOM_DISABLED, test-only) nothing dies and
// every session's cycle is the harness's (cause memory-pressure), none a failure. A folder that is not a memory cgroup
// (SOAK_TEST_MEMORY_CGROUP_ROOT, test-only) is refused in one line, exit 3, before any run folder. A runner SIGKILLed
// mid-squeeze leaves its cgroup with a limit and tasks: the next run sweeps it (tasks killed, limit and folder gone).
// Where no memory cgroup can be used here, the whole file skips with the one line why.
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  readlinkSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execaNode } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CycleEvent, JournalEvent, MemoryPressureEvent } from '../../harness/journal/events.js';
import {
  cgroupParent,
  MEMORY_CGROUP_ROOT,
  MEMORY_OOM_DISABLED,
  memoryCgroupIssue,
} from '../../harness/nemesis/memory-cgroup.js';
import { pidAlive } from '../../harness/core/proc.js';
import { describeResult, outputLines, runSoak, soakIn, type SoakResult } from '../helpers/cli.js';
import { cliPath } from '../helpers/paths.js';

const issue = memoryCgroupIssue();
let tmp: string;
const soak = soakIn(() => tmp, 600_000);

const scenario = (sessions: number, extra: string[] = []): string =>
  [
    'name: memory-pressure',
    'target: process',
    'seed: 7',
    `sessions: ${sessions}`,
    'stepMs: 5',
    'checkpoint: { everyMs: 100 }',
    'kill: { phases: { work: 2, checkpoint: 1, restore: 0 }, workDelayMs: [100, 400], checkpointDelayMs: [0, 3] }',
    'faults: [{ kind: memory-pressure }]',
    'resumeTimeoutMs: 30000',
    ...extra,
    '',
  ].join('\n');

interface Run {
  result: SoakResult;
  runDir: string;
  events: JournalEvent[];
  markdown: string;
}

const readEvents = (runDir: string): JournalEvent[] =>
  readFileSync(path.join(runDir, 'journal.ndjson'), 'utf8')
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l) as JournalEvent);

async function run(name: string, text: string, cycles: number, env: Record<string, string> = {}): Promise<Run> {
  const out = path.join(tmp, name);
  const file = path.join(tmp, `${name}.yaml`);
  writeFileSync(file, text);
  const args = ['run', '--scenario', file, '--cycles', String(cycles), '--boot-samples', '0'];
  const result = await runSoak([...args, '--out', path.join(out, 'runs'), '--report-dir', path.join(out, 'reports')], {
    cwd: tmp,
    timeoutMs: 600_000,
    env,
  });
  const runDir = path.join(out, 'runs', readlinkSync(path.join(out, 'runs', 'latest')));
  const reportLine = outputLines(result.stdout).find((l) => l.startsWith('report: '));
  expect(reportLine, describeResult(result)).toBeDefined();
  const markdown = readFileSync(path.join(path.dirname(reportLine!.slice('report: '.length)), 'summary.md'), 'utf8');
  return { result, runDir, events: readEvents(runDir), markdown };
}

const squeezes = (events: JournalEvent[]): MemoryPressureEvent[] =>
  events.filter((e): e is MemoryPressureEvent => e.type === 'memory-pressure');
const outcomes = (events: JournalEvent[]): CycleEvent[] => events.filter((e): e is CycleEvent => e.type === 'cycle');
const of = (events: JournalEvent[], type: string, session: number, cycle: number): JournalEvent[] =>
  events.filter((e) => e.type === type && (e.session ?? 0) === session && 'cycle' in e && e.cycle === cycle);
/** This runner's run cgroups (named <runId>.<runner pid>.<start>) left under the parent. */
const cgroupsOf = (runId: string): string[] =>
  existsSync(cgroupParent()) ? readdirSync(cgroupParent()).filter((n) => n.startsWith(`${runId}.`)) : [];

/** The cgroup folder of runner `pid`, once it exists and carries a limit (its squeeze is on; observed, not timed). */
async function squeezing(pid: number, running: () => boolean): Promise<string> {
  for (;;) {
    const found = existsSync(cgroupParent()) ? readdirSync(cgroupParent()).find((n) => n.includes(`.${pid}.`)) : null;
    const dir = found ? path.join(cgroupParent(), found) : null;
    const limit = dir ? Number(readFileSync(path.join(dir, 'memory.limit_in_bytes'), 'utf8')) : Infinity;
    if (dir && limit < 2 ** 62) return dir;
    if (!running()) throw new Error(`runner ${pid} ended before its squeeze`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

beforeAll(() => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'soak-e2e-memory-'));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe.skipIf(issue !== null)(
  `memory-pressure with soak run --sessions N (process target)${issue ? ` (skipped: ${issue})` : ''}`,
  () => {
    let good: Run;
    let skewed: Run;
    let spared: Run;

    beforeAll(async () => {
      [good, skewed, spared] = await Promise.all([
        run('good', scenario(3), 3),
        run('skewed', scenario(2, ['skewMs: 40']), 2),
        run('no-oom', scenario(2, ['hostTimeoutMs: 3000']), 1, { [MEMORY_OOM_DISABLED]: '1' }),
      ]);
    }, 900_000);

    it("each squeeze journals the kernel's victim; the victim resumes and verifies; soak check passes", async () => {
      const all = squeezes(good.events);
      expect(
        all.map((s) => s.cycle),
        describeResult(good.result),
      ).toEqual([1, 2, 3]);
      for (const s of all) {
        const seen = JSON.stringify(s);
        expect(s.sessions, seen).toBe(3);
        expect(s.oomKills, seen).toBeGreaterThanOrEqual(1);
        expect(s.killMs, seen).not.toBeNull();
        expect(s.limitBytes, seen).toBeGreaterThan(0);
        expect(s.usageBytes, seen).toBeGreaterThan(0);
        expect(s.victims.length, seen).toBeGreaterThanOrEqual(1);
        const hit = new Set(s.victims.map((v) => v.session));
        for (const session of [0, 1, 2]) {
          const fault = of(good.events, 'fault', session, s.cycle);
          // a victim's cycle is a memory-pressure trial; a spared session's is a plain kill (no fault event)
          expect(
            fault.map((e) => e.type === 'fault' && e.kind),
            seen,
          ).toEqual(hit.has(session) ? ['memory-pressure'] : []);
          expect(of(good.events, 'kill', session, s.cycle), seen).toHaveLength(1);
        }
        // the victim's pid is a process of its session: that session's host, or a process the host started
        for (const v of s.victims) expect(v.session, seen).not.toBeNull();
      }
      const cycles = outcomes(good.events);
      expect(cycles.map((e) => `${e.session ?? 0}:${e.cycle}:${e.outcome}`).sort()).toEqual(
        [0, 1, 2].flatMap((s) => [1, 2, 3].map((c) => `${s}:${c}:ok`)),
      );
      const check = await soak('check', good.runDir);
      expect(check.exitCode, describeResult(check)).toBe(0);
      const victims = all.reduce((n, s) => n + new Set(s.victims.map((v) => v.session)).size, 0);
      expect(good.markdown).toContain(`Tested: memory pressure (`);
      expect(good.markdown).toMatch(new RegExp(`Tested: memory pressure \\(.*\\), n = ${victims}\\.`));
      expect(good.markdown).toMatch(new RegExp(`Tested: process kill .*, n = ${9 - victims}\\.`));
      expect(good.markdown).toContain('## Memory pressure');
      expect(good.markdown).toMatch(/3 memory squeezes \(3 sessions' hosts in one memory cgroup.*it fired in 3 of 3/);
      expect(good.markdown).toMatch(/Time from the first limit to the OOM kill: p50 .*, max .* \(n = 3 squeezes/);
      expect(cgroupsOf(path.basename(good.runDir))).toEqual([]); // removed at run end
    });

    it('negative control: with skewed checkpoints the resume after an OOM kill fails the checker', () => {
      const all = squeezes(skewed.events);
      expect(all.length, describeResult(skewed.result)).toBe(2);
      for (const s of all)
        for (const v of s.victims) {
          const cycle = outcomes(skewed.events).find((e) => (e.session ?? 0) === v.session && e.cycle === s.cycle)!;
          expect(cycle.outcome, JSON.stringify(cycle)).toBe('fail');
          expect(cycle.violations.length).toBeGreaterThan(0);
        }
      expect(skewed.result.exitCode).toBe(1);
    });

    it("negative control: a squeeze where nothing dies is the harness's cause, never a failure", () => {
      const [s] = squeezes(spared.events);
      expect(s, describeResult(spared.result)).toMatchObject({ oomKills: 0, victims: [], killMs: null });
      const cycles = outcomes(spared.events);
      expect(cycles.map((e) => [e.session ?? 0, e.outcome, e.cause?.code]).sort()).toEqual([
        [0, 'indeterminate', 'memory-pressure'],
        [1, 'indeterminate', 'memory-pressure'],
      ]);
      expect(cycles[0]!.cause!.message).toMatch(/no OOM kill in the run's memory cgroup within 3000 ms/);
      expect(spared.events.filter((e) => e.type === 'fault')).toEqual([]);
      expect(spared.markdown).toMatch(/it fired in 0 of 1; the kernel picked 0 processes\./);
      expect(spared.markdown).toMatch(/the OOM killer never fired, so none is measured/);
      expect(spared.result.exitCode).not.toBe(1);
    });

    it('refuses a cgroup root that is not a memory cgroup in one line, exit 3, before any run folder', async () => {
      const root = path.join(tmp, 'not-a-cgroup');
      mkdirSync(root);
      writeFileSync(path.join(tmp, 'refused.yaml'), scenario(2));
      const out = path.join(tmp, 'refused-runs');
      const r = await runSoak(['run', '--scenario', 'refused.yaml', '--boot-samples', '0', '--out', out], {
        cwd: tmp,
        timeoutMs: 120_000,
        env: { [MEMORY_CGROUP_ROOT]: root },
      });
      expect(r.exitCode, describeResult(r)).toBe(3);
      const lines = outputLines(r.stderr);
      expect(lines, describeResult(r)).toEqual([
        `soak: memory-pressure needs a writable cgroup v1 memory controller: ${root} is not a memory cgroup (is the memory controller mounted at /sys/fs/cgroup/memory?)`,
      ]);
      expect(existsSync(out)).toBe(false);
    });

    it('a runner killed mid-squeeze leaves its cgroup; the next run sweeps it: tasks killed, limit and folder gone', async () => {
      writeFileSync(path.join(tmp, 'killed.yaml'), scenario(2, ['hostTimeoutMs: 600000']));
      const out = path.join(tmp, 'killed-runs');
      const args = ['run', '--scenario', 'killed.yaml', '--boot-samples', '0', '--cycles', '1', '--out', out];
      // the OOM killer disabled: the squeeze holds its limit (the hosts wait under OOM) until the runner is killed
      const runner = execaNode(cliPath, args, {
        cwd: tmp,
        reject: false,
        stdin: 'ignore',
        env: { CI: '1', [MEMORY_OOM_DISABLED]: '1' },
      });
      const dir = await squeezing(runner.pid!, () => runner.exitCode === null);
      const tasks = readFileSync(path.join(dir, 'cgroup.procs'), 'utf8').split('\n').filter(Boolean).map(Number);
      expect(tasks.length).toBeGreaterThan(0);
      runner.kill('SIGKILL');
      await runner;
      expect(existsSync(dir)).toBe(true); // left behind, with its hosts in it
      const next = await run('sweeper', scenario(2), 1);
      expect(next.result.exitCode, describeResult(next.result)).not.toBe(4);
      expect(existsSync(dir)).toBe(false);
      expect(tasks.filter((pid) => pidAlive(pid))).toEqual([]);
    }, 600_000);
  },
);
