// A runner SIGKILLed mid-run with its hosts: gVisor's sandbox and gofer (outside every host group) are journaled as the
// kill list; the next runner of that run (`soak run --resume`) kills any still running, the adapter clears the dead
// container's state and .lock, and the session resumes. Real runsc, real SIGKILL; timed from the journal, not sleeps.
// (The kill itself, and its recycled-PID negative control, are tested on plain processes in test/run/orphans.test.ts.)
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execaNode } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import type { CycleEvent, JournalEvent, KillListEvent } from '../../../harness/journal/events.js';
import { readProcStat } from '../../../harness/core/proc.js';
import { describeResult, soakIn } from '../../helpers/cli.js';
import { cliPath } from '../../helpers/paths.js';

const usable = existsSync('/usr/bin/runsc') && process.getuid?.() === 0;
const tmp = mkdtempSync(path.join(os.tmpdir(), 'soak-gvisor-orphans-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const soak = soakIn(() => tmp, 600_000);

function eventsOf(journal: string): JournalEvent[] {
  if (!existsSync(journal)) return [];
  return readFileSync(journal, 'utf8')
    .split('\n')
    .flatMap((l) => {
      try {
        return [JSON.parse(l) as JournalEvent];
      } catch {
        return []; // empty or torn last line
      }
    });
}

async function until<T>(probe: () => T | null | undefined, ms: number, what: string): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = probe();
    if (v !== null && v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`not observed within ${ms} ms: ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

function killGroup(pgid: number): void {
  try {
    process.kill(-pgid, 'SIGKILL');
  } catch {
    // gone already
  }
}

/** Alive and not a zombie. */
const running = (pid: number): boolean => !['Z', 'X', undefined].includes(readProcStat(pid)?.state);

describe.skipIf(!usable)('gvisor: a dead runner leaks no sandbox past the next run', () => {
  it('soak run --resume leaves no process of the journaled kill list, then resumes the session', async () => {
    const runs = path.join(tmp, 'runs');
    const runner = execaNode(cliPath, ['run', '--scenario', 'gvisor-fresh', '--cycles', '2', '--no-report'], {
      cwd: tmp,
      reject: false,
      stdin: 'ignore',
      env: { CI: '1' },
    });
    const journal = () => {
      const dir = existsSync(runs) ? readdirSync(runs).find((d) => d !== 'latest') : undefined;
      return dir === undefined ? '' : path.join(runs, dir, 'journal.ndjson');
    };
    // the first committed checkpoint: a sandbox runs and its kill list is journaled
    const list = await until(
      () => {
        const ev = eventsOf(journal());
        const k = ev.findLast((e): e is KillListEvent => e.type === 'kill-list');
        return ev.some((e) => e.type === 'checkpoint') && k !== undefined ? k : null;
      },
      300_000,
      'a kill list and a committed checkpoint',
    );
    // The runner and its hosts die at once (a cancelled CI job, an OOM kill of the tree): the adapter gets no chance to
    // clean up, and the sandbox, detached in its own session, is outside every group that was killed.
    runner.kill('SIGKILL');
    for (const e of eventsOf(journal())) if (e.type === 'host-start') killGroup(e.pid);
    await runner;
    const declared = list.procs.map((p) => p.pid);
    expect(
      list.procs.filter((p) => p.group),
      'the sandbox is declared as a group',
    ).toHaveLength(1);
    expect(declared.length, 'sandbox and gofer').toBe(2);

    const r = await soak('run', '--resume', path.dirname(journal()), '--no-report');
    const resumed = eventsOf(journal()).find((e) => e.type === 'run-resume');
    expect(resumed, describeResult(r)).toMatchObject({ type: 'run-resume' });
    // Whatever still ran was killed by the resume (a sandbox whose agent lost its stdout may also have exited alone).
    const killed = resumed?.type === 'run-resume' ? (resumed.killedDeclared ?? []) : [];
    expect(declared).toEqual(expect.arrayContaining(killed));
    for (const pid of declared) expect(running(pid), `pid ${pid} of the kill list`).toBe(false);
    const cycles = eventsOf(journal()).filter((e): e is CycleEvent => e.type === 'cycle');
    expect(
      cycles.map((c) => c.outcome),
      describeResult(r),
    ).not.toContain('fail');
    expect(r.exitCode, describeResult(r)).not.toBe(4);
  }, 900_000);
});
