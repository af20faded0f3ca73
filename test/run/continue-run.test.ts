// scanToContinue: from a dead runner's journal, the cycles and boot samples still to run (a shard's share only), the hosts it started
// and the last event time; a journal without run-start is bad input.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { InputError } from '../../harness/core/errors.js';
import { captureEnvironment } from '../../harness/core/environment.js';
import { JournalWriter } from '../../harness/journal/writer.js';
import { scanToContinue } from '../../harness/run/continue-run.js';
import { loadScenario } from '../../harness/scenario/scenario.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function journalFile(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'soak-resume-'));
  dirs.push(dir);
  return path.join(dir, 'journal.ndjson');
}

describe('scanToContinue', () => {
  it('lists the boot samples not yet journaled (of the shard), none for a journal from before bootSamples', () => {
    const file = journalFile();
    const j = new JournalWriter(file, () => 1);
    const { scenario } = loadScenario('default', { cycles: 4, bootSamples: 6 });
    const shard = { index: 0, count: 2 }; // owns samples 1, 3, 5
    j.append({ type: 'run-start', runId: 'r', startedAt: '', scenario, environment: captureEnvironment({}), shard });
    j.append({ type: 'boot', cycle: 1, bootMs: 200, nonce: 'a', sample: 1 });
    j.append({ type: 'boot', cycle: 1, bootMs: 210, nonce: 'b' }); // the session's own boot is no sample
    expect(scanToContinue(file).remainingSamples).toEqual([3, 5]);
    const old = journalFile();
    const { bootSamples: _dropped, ...before } = scenario;
    const w = new JournalWriter(old, () => 1);
    w.append({
      type: 'run-start',
      runId: 'o',
      startedAt: '',
      scenario: before as typeof scenario,
      environment: captureEnvironment({}),
    });
    expect(scanToContinue(old).remainingSamples).toEqual([]);
  });

  it('lists the unfinished cycles of the shard, the started hosts and the last time', () => {
    const file = journalFile();
    let t = 0;
    const j = new JournalWriter(file, () => (t += 10));
    const { scenario } = loadScenario('default', { cycles: 9 });
    const shard = { index: 1, count: 3 }; // owns cycles 2, 5, 8
    j.append({ type: 'run-start', runId: 'r', startedAt: '', scenario, environment: captureEnvironment({}), shard });
    j.append({ type: 'host-start', cycle: 2, pid: 111, mode: 'boot' });
    j.append({ type: 'cycle-start', cycle: 2, phase: 'work' });
    j.append({ type: 'host-start', cycle: 2, pid: 222, mode: 'restore' });
    // cycle 2 finished; cycle 5 started but never finished
    j.append({
      type: 'cycle',
      cycle: 2,
      phase: 'work',
      observedPhase: 'work',
      outcome: 'ok',
      downtimeMs: 12,
      killStep: 30,
      restoredSeq: 2,
      restoredStep: 28,
      lostSteps: 2,
      restoreKills: 0,
      violations: [],
    });
    j.append({ type: 'cycle-start', cycle: 5, phase: 'work' });
    j.close();
    const scan = scanToContinue(file);
    expect(scan.remaining).toEqual([5, 8]);
    expect(scan.hosts.map((h) => h.pid)).toEqual([111, 222]);
    expect(scan.lastT).toBe(60);
    expect(scan.start.runId).toBe('r');
  });

  it('rejects a journal without run-start (negative control)', () => {
    const file = journalFile();
    writeFileSync(file, '{"schemaVersion":1,"t":1,"type":"run-end","status":"complete","cycles":0}\n');
    expect(() => scanToContinue(file)).toThrow(InputError);
  });
});
