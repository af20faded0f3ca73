// An exec adapter whose restore never answers (issue 30): through the real CLI, real hosts and SIGKILLs, each kill's
// restore is a failed resume once the scenario's resume bound runs out while the host and the adapter still answer:
// every cycle fails with session-hung (never resumed), the run exits 1 as a failure of the runtime (not 2, insufficient,
// for ever; not 4, an internal error), and summary.json (valid against its schema), the gates and `soak check` say so.
// One whose boot never answers fails each cycle's start the same way (no kill: no torn-write trial).
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { CycleEvent, HostStartEvent, JournalEvent } from '../../../harness/journal/events.js';
import { describeResult, soakIn } from '../../helpers/cli.js';
import { fixturePath } from '../../helpers/paths.js';
import { validatorFor } from '../../helpers/schemas.js';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'soak-restore-hangs-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const soak = soakIn(() => tmp, 300_000);
const RESUME_MS = 6000;

describe('exec target: an adapter whose restore never answers', () => {
  it('is a failed resume after the resume bound, every cycle, exit 1; summary, gates and soak check agree', async () => {
    writeFileSync(
      path.join(tmp, 'restore-hangs.yaml'),
      [
        'name: restore-hangs',
        'target: exec',
        `adapter: ${fixturePath('adapters', 'hangs.mjs')}`,
        'cycles: 2',
        'stepMs: 5',
        'checkpoint: { everyMs: 100 }',
        'kill: { phases: { work: 1 }, workDelayMs: [100, 300] }',
        `resumeTimeoutMs: ${RESUME_MS}`,
        'hostTimeoutMs: 5000',
      ].join('\n'),
    );
    const r = await soak('run', '--scenario', 'restore-hangs.yaml', '--out', 'runs', '--report-dir', 'reports');
    expect(r.exitCode, describeResult(r)).toBe(1);
    const runDir = path.join(tmp, 'runs', 'latest');
    const events = readFileSync(path.join(runDir, 'journal.ndjson'), 'utf8')
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as JournalEvent);
    const cycles = events.filter((e): e is CycleEvent => e.type === 'cycle');
    expect(cycles.map((c) => [c.outcome, c.downtimeMs, c.violations.map((v) => v.code)])).toEqual([
      ['fail', null, ['session-hung']],
      ['fail', null, ['session-hung']],
    ]);
    for (const c of cycles)
      expect(c.violations[0]!.message).toMatch(
        new RegExp(`sent no (restore-end|full heartbeat) within ${RESUME_MS} ms, while its host answered`),
      );
    // a session that never resumed is ended; the next cycle boots a new one
    const modes = events.filter((e): e is HostStartEvent => e.type === 'host-start').map((e) => e.mode);
    expect(modes).toEqual(['boot', 'restore', 'boot', 'restore']);

    const reports = path.join(tmp, 'reports');
    const report = path.join(
      reports,
      readdirSync(reports).find((d) => d.endsWith('restore-hangs'))!,
    );
    const summary = JSON.parse(readFileSync(path.join(report, 'summary.json'), 'utf8')) as {
      cycles: Record<string, number>;
      killResume: { successes: number; trials: number };
      violations: number;
      gates: { id: number; verdict: string }[];
    };
    expect(validatorFor('summary')(summary)).toEqual([]);
    expect(summary.cycles).toMatchObject({ total: 2, resumed: 0, failed: 2, indeterminate: 0 });
    expect(summary.killResume).toMatchObject({ successes: 0, trials: 2 });
    expect(summary.violations).toBe(2);
    expect(summary.gates.find((g) => g.id === 2)?.verdict).toBe('fail'); // any violation fails checkpoint atomicity

    const check = await soak('check', runDir);
    expect(check.exitCode, describeResult(check)).toBe(1);
    expect(check.stdout).toMatch(/the run journaled 2 failed cycles/);
  }, 300_000);

  it('one whose boot never answers: each cycle fails to start (session-hung), exit 1', async () => {
    writeFileSync(
      path.join(tmp, 'boot-hangs.yaml'),
      [
        'name: boot-hangs',
        'target: exec',
        `adapter: ${fixturePath('adapters', 'hangs.mjs')}`,
        'adapterOptions: { hang: boot }',
        'cycles: 2',
        'kill: { phases: { work: 0, checkpoint: 1 } }',
        `resumeTimeoutMs: ${RESUME_MS}`,
        'hostTimeoutMs: 5000',
      ].join('\n'),
    );
    const r = await soak('run', '--scenario', 'boot-hangs.yaml', '--out', 'runs-boot', '--report-dir', 'reports');
    expect(r.exitCode, describeResult(r)).toBe(1);
    const events = readFileSync(path.join(tmp, 'runs-boot', 'latest', 'journal.ndjson'), 'utf8')
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as JournalEvent);
    const cycles = events.filter((e): e is CycleEvent => e.type === 'cycle');
    expect(
      cycles.map((c) => [c.phase, c.observedPhase, c.outcome, c.downtimeMs, c.violations.map((v) => v.code)]),
    ).toEqual([
      ['checkpoint', 'work', 'fail', null, ['session-hung']],
      ['checkpoint', 'work', 'fail', null, ['session-hung']],
    ]);
    expect(cycles[0]!.violations[0]!.message).toMatch(
      new RegExp(`sent no (booted|full heartbeat|ckpt-commit) within ${RESUME_MS} ms, while its host answered`),
    );
    expect(events.filter((e) => e.type === 'kill')).toEqual([]);
    expect(events.filter((e): e is HostStartEvent => e.type === 'host-start').map((e) => e.mode)).toEqual([
      'boot',
      'boot',
    ]);
  }, 300_000);
});
