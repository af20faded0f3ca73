// Issue 30's hostile-adapter suite, through the real CLI, real hosts and real SIGKILLs, with the fixture adapter
// test/fixtures/hostile-adapter.mjs (the example adapter plus one planted thing per boot or restore). One shared run
// plants, restore after restore: an unrelated PID (a sleep this test spawned), the runner's PID, the runner's parent,
// group 1, PID 1, PID 0, PID -1, a recycled PID (a descendant that exited, its PID taken by a sleep this test started
// there through the kernel's ns_last_pid: root only) and a crash mid-restore. Each is refused with a message naming the
// field and the value, each victim is alive afterwards, every cycle fails with adapter-fault and the run exits 5.
// Plus: garbage at the first boot ends the run with exit 5 naming the adapter (escaped); and the positive control, a
// detached descendant declared as a group IS killed by the runner's SIGKILL while its undeclared twin lives on.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execaNode, type Result } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { readProcStat } from '../../harness/core/proc.js';
import { ADAPTER_LOG_BUDGET } from '../../harness/targets/exec/adapter-log.js';
import type { CycleEvent, JournalEvent, KillListEvent, RunEndEvent } from '../../harness/journal/events.js';
import { describeResult, writeScenario } from '../helpers/cli.js';
import { cliPath, fixturePath } from '../helpers/paths.js';
import { checkCliOutputs } from '../helpers/schemas.js';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'soak-hostile-'));
const spawned: ChildProcess[] = [];
afterAll(() => {
  for (const c of spawned) {
    c.kill('SIGKILL');
    if (c.spawnargs[0] === 'python3') process.kill(-c.pid!, 'SIGKILL'); // its group: the sleep it forked too
  }
  rmSync(tmp, { recursive: true, force: true });
});
const root = process.getuid?.() === 0 && existsSync('/proc/sys/kernel/ns_last_pid');

/** Alive and not a zombie. */
const running = (pid: number): boolean => !['Z', 'X', undefined].includes(readProcStat(pid)?.state);

function victim(): ChildProcess {
  const c = spawn('sleep', ['1000'], { stdio: 'ignore' });
  spawned.push(c);
  return c;
}

/** A scenario for the fixture adapter with this plan (one entry per boot or restore, in order). */
function scenario(
  name: string,
  cycles: number,
  options: Record<string, unknown>,
  workDelayMs = '[150, 250]',
  extra: string[] = [],
): string {
  return writeScenario(tmp, name, [
    'target: exec',
    `adapter: ${fixturePath('hostile-adapter.mjs')}`,
    `adapterOptions: ${JSON.stringify({ stateDir: path.join(tmp, `${name}-state`), ...options })}`,
    `cycles: ${cycles}`,
    'stepMs: 5',
    'checkpoint: { everyMs: 100 }',
    `kill: { phases: { work: 1 }, workDelayMs: ${workDelayMs} }`,
    ...extra,
  ]);
}

/** `soak run` on `file` (no report, --json), its journal and parsed output. */
async function run(
  name: string,
  file: string,
): Promise<{ r: Result; events: JournalEvent[]; json: Record<string, unknown> | null; runner: number }> {
  const out = path.join(tmp, `${name}-runs`);
  const args = ['run', '--scenario', file, '--out', out, '--no-report', '--json'];
  const runner = execaNode(cliPath, args, {
    reject: false,
    timeout: 180_000,
    stdin: 'ignore',
    env: { CI: '1' },
  });
  const r = await runner;
  checkCliOutputs(args, process.cwd(), r.stdout);
  const dir = readdirSync(out).find((d) => d !== 'latest')!;
  const events = readFileSync(path.join(out, dir, 'journal.ndjson'), 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as JournalEvent);
  let json: Record<string, unknown> | null = null;
  try {
    json = JSON.parse(r.stdout) as Record<string, unknown>;
  } catch {
    // a run that ended on an error prints no JSON
  }
  return { r, events, json, runner: runner.pid! };
}

/**
 * Start a sleep at `pid` (a PID just freed): ns_last_pid = PID - 1, then fork at once, in one small Python process
 * (a fork by another process between the two steps takes the turn: retried; Node's spawn between them is too slow on a
 * busy machine). The Python process stays as the sleep's parent; null when it could not get the PID.
 */
async function startAtPid(pid: number): Promise<ChildProcess | null> {
  const script = [
    'import os, sys',
    'pid = int(sys.argv[1])',
    'for _ in range(5000):',
    '    with open("/proc/sys/kernel/ns_last_pid", "w") as f: f.write(str(pid - 1))',
    '    c = os.fork()',
    '    if c == 0: os.execvp("sleep", ["sleep", "1000"])',
    '    if c == pid:',
    '        print("ok", flush=True); os.waitpid(c, 0); sys.exit(0)',
    '    os.kill(c, 9); os.waitpid(c, 0)',
    'print("taken", flush=True)',
  ].join('\n');
  const py = spawn('python3', ['-c', script, String(pid)], { stdio: ['ignore', 'pipe', 'inherit'], detached: true });
  spawned.push(py);
  const first = await new Promise<string>((resolve) => {
    py.stdout.once('data', (d: Buffer) => resolve(d.toString().trim()));
    py.once('exit', () => resolve('exited'));
  });
  return first === 'ok' ? py : null;
}

/**
 * The test's half of the "recycled" plan: once the adapter's descendant has exited (its PID in free-pid), start a
 * sleep at that PID (startAtPid), then say victim-ready. Resolves with the sleep's PID.
 */
async function recycleWhenAsked(stateDir: string, done: Promise<unknown>): Promise<{ pid: number } | null> {
  const ask = path.join(stateDir, 'free-pid');
  const state = { finished: false };
  void done.then(() => (state.finished = true));
  while (!existsSync(ask)) {
    if (state.finished) return null;
    await new Promise((r) => setTimeout(r, 20));
  }
  const pid = Number(readFileSync(ask, 'utf8'));
  if (!Number.isSafeInteger(pid) || pid <= 1) throw new Error(`${ask} does not hold a PID: ${JSON.stringify(pid)}`);
  if ((await startAtPid(pid)) === null)
    throw new Error(`could not start a process at pid ${pid} (other forks kept taking it)`);
  writeFileSync(path.join(stateDir, 'victim-ready'), '');
  return { pid };
}

describe('a hostile exec adapter', () => {
  it.concurrent(
    'every kill list it cannot prove is refused, naming the field; every victim lives; each cycle is an adapter fault; exit 5',
    async () => {
      const unrelated = victim();
      const plan = [
        'victim',
        'runner',
        'runner-parent',
        'group1',
        'pid1',
        'pid0',
        'pid-1',
        ...(root ? ['recycled'] : []),
        'crash',
      ];
      const file = scenario('hostile', plan.length, { plan: ['none', ...plan], victim: unrelated.pid });
      const running_ = run('hostile', file);
      const recycled = root ? recycleWhenAsked(path.join(tmp, 'hostile-state'), running_) : Promise.resolve(null);
      const [{ r, events, json, runner }, reused] = await Promise.all([running_, recycled]);
      const why = describeResult(r);
      expect(r.exitCode, why).toBe(5);
      const cycles = events.filter((e): e is CycleEvent => e.type === 'cycle');
      expect(
        cycles.map((c) => c.outcome),
        why,
      ).toEqual(plan.map(() => 'fail'));
      expect(cycles.every((c) => c.downtimeMs === null && c.violations.every((v) => v.code === 'adapter-fault'))).toBe(
        true,
      );
      const message = (i: number): string => cycles[i]!.violations[0]!.message;
      const refused = (field: string, value: number, reason: string): RegExp =>
        new RegExp(
          `^adapter fault: adapter .*hostile-adapter\\.mjs \\(pid \\d+\\), request restore #2: .*${field.replace(/[[\]]/g, '\\$&')} = ${value}: ${reason}`,
        );
      const expected: Record<string, RegExp> = {
        victim: refused('pids[0]', unrelated.pid!, `pid ${unrelated.pid} is not a descendant of adapter pid \\d+`),
        runner: refused('pids[0]', runner, `pid ${runner} is never killed: it is the runner$`),
        'runner-parent': refused(
          'pids[0]',
          process.pid,
          `pid ${process.pid} is never killed: it is the runner's parent$`,
        ),
        group1: refused('groups[0]', 1, 'pid 1 is never killed \\(init\\)$'),
        pid1: refused('pids[0]', 1, 'pid 1 is never killed \\(init\\)$'),
        pid0: refused('pids[0]', 0, 'not a positive process id'),
        'pid-1': refused('pids[0]', -1, 'not a positive process id'),
        recycled: refused(
          'pids[0]',
          reused?.pid ?? -2,
          `pid ${reused?.pid ?? -2} is not a descendant of adapter pid \\d+ \\(its parent chain ends`,
        ),
        crash: /request restore #2: exited \(exit code 1, signal null\)$/,
      };
      plan.forEach((p, i) => expect(message(i), p).toMatch(expected[p]!));
      // the victims live on (the runner and its parent: this run exited 5 on its own, and this test runs)
      expect(running(unrelated.pid!)).toBe(true);
      if (reused) expect(running(reused.pid)).toBe(true);
      expect(json?.['verdict']).toBe('adapter-fault');
      const summary = json?.['summary'] as { violations: number; adapterFaults: { count: number } };
      expect(summary.violations, 'adapter faults are not checker violations').toBe(0);
      expect(summary.adapterFaults.count).toBe(plan.length);
      expect(
        events.some((e) => e.type === 'kill-list'),
        'no refused list was journaled',
      ).toBe(false);
      // soak check reaches the run's verdict from the journal: the adapter's fault (exit 5), not a FAIL
      const args = ['check', String(json?.['runDir']), '--json'];
      const check = await execaNode(cliPath, args, { reject: false, timeout: 60_000, stdin: 'ignore' });
      expect(check.exitCode, describeResult(check)).toBe(5);
      checkCliOutputs(args, process.cwd(), check.stdout);
      expect(JSON.parse(check.stdout)).toMatchObject({ adapterFaults: plan.length, systemFailures: 0 });
    },
    180_000,
  );

  it.concurrent(
    'garbage at the first boot: the run ends, exit 5, the adapter and the request named, the bytes escaped',
    async () => {
      const { r, events } = await run('garbage', scenario('garbage', 2, { plan: ['garbage'] }));
      expect(r.exitCode, describeResult(r)).toBe(5);
      const stderr = r.stderr;
      expect(stderr).toMatch(
        /soak: adapter fault: adapter .*hostile-adapter\.mjs \(pid \d+\), request boot #2: a line that is not a JSON object: "garbage \\u001b\[31mred\\u001b\[0m \[U\+202E\]evil"/,
      );
      expect(stderr).not.toContain('\u001b');
      expect(stderr).not.toContain('\u202e');
      const end = events.find((e): e is RunEndEvent => e.type === 'run-end');
      expect(end).toMatchObject({ status: 'aborted', cycles: 0 });
      expect(end?.reason).toMatch(/^adapter fault: /);
    },
  );

  it.concurrent(
    'a line that never ends at the first boot is cut at 1 MiB: exit 5, the host did not buffer it',
    async () => {
      const { r, events } = await run('endless', scenario('endless', 2, { plan: ['endless'] }));
      expect(r.exitCode, describeResult(r)).toBe(5);
      expect(r.stderr).toMatch(/request boot #2: a line of over 1048576 bytes \(\d+ seen without a newline\)/);
      expect(events.find((e): e is RunEndEvent => e.type === 'run-end')?.reason).toMatch(/^adapter fault: /);
    },
  );

  it.concurrent('an adapter that floods its stderr gets 8 MiB of the host log per process, then one line', async () => {
    const flood = 12 << 20; // bytes each adapter process writes at its describe
    // generous bounds: each adapter process writes 12 MiB before it answers, at whatever load the suite makes
    const bounds = ['resumeTimeoutMs: 120000', 'hostTimeoutMs: 60000'];
    const { r, events } = await run('flood', scenario('flood', 1, { stderrFlood: flood }, '[150, 250]', bounds));
    expect([0, 2], describeResult(r)).toContain(r.exitCode); // 2: one cycle is too few for the gates
    const hosts = events.filter((e) => e.type === 'host-start').length;
    const runs = path.join(tmp, 'flood-runs');
    const log = readFileSync(
      path.join(
        runs,
        readdirSync(runs).find((d) => d !== 'latest')!,
        'hosts.log',
      ),
    );
    expect(hosts).toBeGreaterThan(0);
    expect(log.length).toBeLessThan(hosts * (ADAPTER_LOG_BUDGET + (256 << 10)));
    // every adapter process that got past its budget says so once (the last may be killed before it gets there)
    const notices = log.toString('latin1').match(/the adapter wrote over \d+ bytes of log: the rest is dropped/g);
    expect(
      notices?.length ?? 0,
      `${describeResult(r)}\nhosts: ${hosts}, hosts.log: ${log.length} bytes, ${log
        .toString('latin1')
        .match(/^(?!e+$).*$/gm)
        ?.filter((l) => l !== '')
        .slice(0, 20)
        .join('\n')}`,
    ).toBeGreaterThanOrEqual(1);
    expect(notices?.length ?? 0).toBeLessThanOrEqual(hosts);
  });

  it.concurrent('a fault while the session works (no request pending) fails that cycle; it is not lost', async () => {
    // cycle 1 resumes fine; its restored session breaks the protocol after its first checkpoint, long before the kill
    const { r, events } = await run(
      'working',
      scenario('working', 2, { plan: ['none', 'late-garbage'] }, '[1500, 1500]'),
    );
    expect(r.exitCode, describeResult(r)).toBe(5);
    const cycles = events.filter((e): e is CycleEvent => e.type === 'cycle');
    expect(cycles.map((c) => c.outcome)).toEqual(['ok', 'fail']);
    expect(cycles[1]).toMatchObject({ downtimeMs: null, restoredSeq: null });
    expect(cycles[1]!.violations).toEqual([
      {
        code: 'adapter-fault',
        message: expect.stringMatching(
          /after request checkpoint #\d+ was answered: a line that is not a JSON object: "late garbage"$/,
        ) as string,
      },
    ]);
    expect(
      events.filter((e) => e.type === 'kill'),
      'no kill was sent to the dead session',
    ).toHaveLength(1);
  });

  it.concurrent(
    'a warm standby that dies of an adapter fault ends the run at the hand-off: exit 5, not lost',
    async () => {
      // describes: 1 the run's describe host, 2 the session's boot host, 3 the first standby
      const file = scenario('standby', 1, { plan: ['none'], garbageAtDescribe: 3 }, '[400, 400]', ['standby: true']);
      const { r, events } = await run('standby', file);
      expect(r.exitCode, describeResult(r)).toBe(5);
      const end = events.find((e): e is RunEndEvent => e.type === 'run-end');
      expect(end?.status).toBe('aborted');
      expect(end?.reason).toMatch(
        /^adapter fault: .*request describe #1: a line that is not a JSON object: "not json at describe"$/,
      );
    },
  );

  it.concurrent('soak target check reports the adapter fault as such: ADAPTER FAULT, exit 5', async () => {
    const file = scenario('check', 1, { plan: ['garbage'] });
    const r = await execaNode(cliPath, ['target', 'check', file], { reject: false, timeout: 120_000, stdin: 'ignore' });
    expect(r.exitCode, describeResult(r)).toBe(5);
    const out = r.stdout;
    expect(out).toMatch(
      /^boots-and-heartbeats +ADAPTER FAULT +adapter fault: adapter .*hostile-adapter\.mjs \(pid \d+\), request boot #2: a line that is not a JSON object/m,
    );
    expect(out).toMatch(
      /^verdict: ADAPTER FAULT \(boots-and-heartbeats, checkpoint-restore, .*destroy-no-process: the adapter broke the protocol\)$/m,
    );
    expect(out).not.toContain('\u001b');
    expect(out).not.toContain('\u202e');
  });

  it.concurrent(
    'positive control: a detached descendant it declares is killed by the runner; its undeclared twin is not',
    async () => {
      const { r, events } = await run('detached', scenario('detached', 1, { plan: ['detached'] }));
      const { declared, undeclared } = JSON.parse(
        readFileSync(path.join(tmp, 'detached-state', 'detached.json'), 'utf8'),
      ) as {
        declared: number;
        undeclared: number;
      };
      try {
        expect(r.exitCode, describeResult(r)).not.toBe(5);
        expect(events.filter((e): e is CycleEvent => e.type === 'cycle').map((e) => e.outcome)).toEqual(['ok']);
        const list = events.find((e): e is KillListEvent => e.type === 'kill-list');
        expect(list?.procs).toEqual([{ pid: declared, startTime: expect.any(String) as string, group: true }]);
        expect(running(declared), 'the declared process died of the runner SIGKILL').toBe(false);
        expect(running(undeclared), 'nothing else killed it').toBe(true);
      } finally {
        for (const pid of [declared, undeclared])
          try {
            process.kill(pid, 'SIGKILL');
          } catch {
            // gone
          }
      }
    },
  );
});
