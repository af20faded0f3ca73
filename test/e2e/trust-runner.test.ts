// The runner survives what a host can do (issue 13, findings 3, 4, 6): an internal error journals run-end 'aborted'
// (never 'complete'); a host SIGSTOPped while the runner waits for a checkpoint costs one indeterminate cycle
// (host-hung), not the run, and no atomicity failure; a killed host's scratch folder is gone before the next starts.
// Faults are timed from the journal the run writes, never from sleeps.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execaNode } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import type { CycleEvent, HostStartEvent, JournalEvent } from '../../harness/journal/events.js';
import { cliPath } from '../helpers/paths.js';
import { checkCliOutputs } from '../helpers/schemas.js';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'soak-trust-runner-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

if (!existsSync(cliPath)) throw new Error(`${cliPath} is missing: build first (npm run build)`);

/** The events of a journal so far (a torn last line is skipped). */
function eventsOf(journal: string): JournalEvent[] {
  if (!existsSync(journal)) return [];
  const out: JournalEvent[] = [];
  for (const line of readFileSync(journal, 'utf8').split('\n')) {
    try {
      out.push(JSON.parse(line) as JournalEvent);
    } catch {
      // empty or torn last line
    }
  }
  return out;
}

/** The only run folder under `runs`, once it exists (null before). */
function runDirOf(runs: string): string | null {
  if (!existsSync(runs)) return null;
  const dir = readdirSync(runs).find((d) => d !== 'latest');
  return dir === undefined ? null : path.join(runs, dir);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Poll until `probe` returns a value (observed progress), for at most `ms`. */
async function until<T>(probe: () => T | null | undefined, ms: number, what: string): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = probe();
    if (v !== null && v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`not observed within ${ms} ms: ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('soak run: run-end tells the truth', () => {
  it('an internal error after one cycle: exit 4, one line without a stack, run-end aborted with the reason', async () => {
    const out = path.join(tmp, 'aborted');
    const r = await execaNode(cliPath, ['run', '--cycles', '3', '--boot-samples', '0', '--out', out, '--no-report'], {
      cwd: tmp,
      reject: false,
      timeout: 170_000,
      stdin: 'ignore',
      env: { CI: '1', SOAK_TEST_RUNNER_ERROR_AFTER: '1' },
    });
    expect(r.exitCode, r.stderr).toBe(4);
    const errors = r.stderr.split('\n').filter((l) => l.startsWith('soak: internal error'));
    expect(errors).toHaveLength(1);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    const events = eventsOf(path.join(runDirOf(out)!, 'journal.ndjson'));
    const end = events.at(-1)!;
    expect(end).toMatchObject({ type: 'run-end', status: 'aborted', cycles: 1 });
    expect(end.type === 'run-end' ? end.reason : '').toContain('injected runner error');
  }, 180_000);
});

describe('soak run: a host SIGSTOPped while the runner waits for a checkpoint to begin', () => {
  const scenario = path.join(tmp, 'hang.yaml');
  writeFileSync(
    scenario,
    [
      'name: trust-hang',
      'target: process',
      'cycles: 4',
      'seed: 7',
      // Every kill waits for a checkpoint to begin, after 1.5 s of work: the window in which the test stops the host.
      'kill:',
      '  phases: { work: 0, checkpoint: 1, restore: 0 }',
      '  workDelayMs: [1500, 1500]',
      '  checkpointDelayMs: [0, 1]',
      'hostTimeoutMs: 3000',
      '',
    ].join('\n'),
  );
  const out = path.join(tmp, 'hang');
  const reports = path.join(tmp, 'hang-reports');
  let stopped = 0;
  let scratchAtCycle3: string[] = [];
  let result: { exitCode: number | undefined; stdout: string; stderr: string } | null = null;

  it('the run goes on to all 4 cycles; cycle 2 is indeterminate (host-hung); the stopped host is gone', async () => {
    const args = ['run', '--scenario', scenario, '--out', out, '--report-dir', reports, '--json'];
    const run = execaNode(cliPath, args, {
      cwd: tmp,
      reject: false,
      timeout: 300_000,
      stdin: 'ignore',
      env: { CI: '1' },
    });
    const journal = (): string | null => {
      const d = runDirOf(out);
      return d && path.join(d, 'journal.ndjson');
    };
    // Cycle 2 started: the runner now sleeps 1.5 s, then waits for the host's next checkpoint-begin.
    const host = await until(
      () => {
        const j = journal();
        if (!j) return null;
        const events = eventsOf(j);
        if (!events.some((e) => e.type === 'cycle-start' && e.cycle === 2)) return null;
        return events.filter((e): e is HostStartEvent => e.type === 'host-start').at(-1);
      },
      200_000,
      'cycle 2 starts',
    );
    stopped = host.pid;
    process.kill(stopped, 'SIGSTOP');
    // Cycle 3 started: the hung host was killed, a new one restored; only the running host has a scratch folder.
    await until(
      () => eventsOf(journal()!).some((e) => e.type === 'cycle-start' && e.cycle === 3) || null,
      200_000,
      'cycle 3 starts',
    );
    const scratch = path.join(runDirOf(out)!, 'scratch');
    scratchAtCycle3 = existsSync(scratch) ? readdirSync(scratch) : [];
    const r = await run;
    checkCliOutputs(args, tmp, r.stdout);
    result = { exitCode: r.exitCode, stdout: r.stdout, stderr: r.stderr };

    const events = eventsOf(journal()!);
    const cycles = events.filter((e): e is CycleEvent => e.type === 'cycle');
    expect(cycles.map((c) => c.cycle)).toEqual([1, 2, 3, 4]);
    const hung = cycles.find((c) => c.cycle === 2)!;
    expect(hung.outcome, JSON.stringify(hung)).toBe('indeterminate');
    expect(hung.cause?.code).toBe('host-hung');
    expect(hung.violations).toEqual([]);
    expect(events.at(-1)).toMatchObject({ type: 'run-end', status: 'complete', cycles: 4 });
    expect(alive(stopped)).toBe(false);
    expect(result.stderr).not.toMatch(/\n\s+at /);
  }, 320_000);

  it("a killed host's scratch folder is gone before the next cycle (only the running host's is left)", () => {
    expect(result).not.toBeNull();
    expect(scratchAtCycle3.filter((n) => n.startsWith('host-')).length).toBeLessThanOrEqual(1);
    expect(scratchAtCycle3.some((n) => n.startsWith(`host-${stopped}-`))).toBe(false);
  });

  it('gates and report count it apart: gate 2 (atomicity) clean, the cause shown in summary.md and summary.json', () => {
    expect(result).not.toBeNull();
    const json = JSON.parse(result!.stdout) as {
      summary: {
        cycles: { indeterminate: number; failed: number };
        indeterminate?: { causes: Record<string, number> };
        tornCheckpoint: { trials: number; previousRestored: number };
        killResume: { trials: number };
      };
      gates: { id: number; verdict: string }[];
      reportDir: string;
    };
    const s = json.summary;
    expect(s.cycles.indeterminate).toBe(1);
    expect(s.indeterminate?.causes['host-hung']).toBe(1);
    expect(s.cycles.failed).toBe(0);
    expect(s.killResume.trials).toBe(3);
    expect(s.tornCheckpoint.previousRestored).toBe(s.tornCheckpoint.trials);
    const gate2 = json.gates.find((g) => g.id === 2)!;
    expect(gate2.verdict).not.toBe('fail');
    const md = readFileSync(path.join(json.reportDir, 'summary.md'), 'utf8');
    expect(md).toMatch(/indeterminate/i);
    expect(md).toContain('host-hung');
    const saved = JSON.parse(readFileSync(path.join(json.reportDir, 'summary.json'), 'utf8')) as {
      summary?: { indeterminate?: { causes: Record<string, number> } };
      indeterminate?: { causes: Record<string, number> };
    };
    expect((saved.summary ?? saved).indeterminate?.causes['host-hung']).toBe(1);
  });
});
