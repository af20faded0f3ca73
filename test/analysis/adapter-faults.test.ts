// Adapter faults are counted apart from checker violations (summary.adapterFaults; summary.violations holds only the
// checker's): a cycle failed with adapter-fault, and a runner that ended on one at a boot (run-end aborted with an
// "adapter fault: " reason); the same through analyze(), the journal's fast path and a journal split over threads.
// Such a cycle stays a failed trial of the kill-and-resume rate, with no downtime.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { analyze } from '../../harness/analysis/analyze.js';
import { loadRuns } from '../../harness/analysis/load-runs.js';
import { encodeEvent } from '../../harness/journal/codec.js';
import type { JournalEvent, Violation } from '../../harness/journal/events.js';
import { parseScenario } from '../../harness/scenario/scenario.js';
import { journalEvent, testEnvironment } from '../helpers/journal-events.js';

const scenario = parseScenario('name: x\ncycles: 3\nseed: 1\ntarget: process\n', 'x.yaml');
const start = journalEvent({
  type: 'run-start',
  runId: 'r',
  startedAt: '2026-12-02T00:00:00.000Z',
  scenario,
  environment: { ...testEnvironment, target: { kind: 'exec' } },
});
const cycle = (n: number, violations: Violation[], downtimeMs: number | null): JournalEvent =>
  journalEvent({
    type: 'cycle',
    cycle: n,
    phase: 'work',
    observedPhase: 'work',
    outcome: violations.length === 0 ? 'ok' : 'fail',
    downtimeMs,
    killStep: 10,
    restoredSeq: downtimeMs === null ? null : 1,
    restoredStep: downtimeMs === null ? null : 8,
    lostSteps: downtimeMs === null ? null : 2,
    restoreKills: 0,
    violations,
    cause: null,
  });
const fault = (m: string): Violation => ({ code: 'adapter-fault', message: `adapter fault: ${m}` });
const journal = [
  start,
  cycle(1, [], 120),
  cycle(2, [fault('adapter a.mjs (pid 9), request restore #2: exited (exit code 1, signal null)')], null),
  cycle(3, [{ code: 'inconsistent', message: 'fs at step 3, mem at step 5' }], 140),
  journalEvent({
    type: 'run-end',
    status: 'aborted',
    cycles: 3,
    reason: 'adapter fault: adapter a.mjs, request boot #2: garbage',
  }),
];
const dir = mkdtempSync(path.join(os.tmpdir(), 'soak-adapter-faults-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('summary.adapterFaults', () => {
  const want = {
    count: 2,
    samples: [
      'adapter fault: adapter a.mjs (pid 9), request restore #2: exited (exit code 1, signal null)',
      'adapter fault: adapter a.mjs, request boot #2: garbage',
    ],
  };

  it('counts adapter faults apart from checker violations; the faulted cycle is a failed trial without downtime', () => {
    const s = analyze(journal).summary;
    expect(s.adapterFaults).toEqual(want);
    expect(s.violations).toBe(1);
    expect(s.violationSamples).toEqual(['fs at step 3, mem at step 5']);
    expect(s.killResume).toMatchObject({ successes: 1, trials: 3 });
    expect(s.downtimeMs.n).toBe(1);
    const clean = analyze([start, cycle(1, [], 100)]).summary;
    expect(clean.adapterFaults).toEqual({ count: 0, samples: [] });
  });

  it('counts the same from a journal file: fast path, reference path, split over threads', async () => {
    const run = path.join(dir, 'run');
    mkdirSync(run, { recursive: true });
    writeFileSync(path.join(run, 'journal.ndjson'), journal.map((e) => `${encodeEvent(e)}\n`).join(''));
    for (const options of [{ fastPath: true }, { fastPath: false }, { parallelFromBytes: 1, threads: 2 }]) {
      const s = (await loadRuns([run], options)).analysis.summary;
      expect(s.adapterFaults, JSON.stringify(options)).toEqual(want);
      expect(s.violations, JSON.stringify(options)).toBe(1);
    }
  });
});
