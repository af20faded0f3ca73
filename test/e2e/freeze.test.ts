// The freeze nemesis through `soak run` (issue 17): a thawed freeze is journaled as a `fault` and judged by the freeze
// checker without a kill or a new host (the same session carried on, 0 lost steps); a freeze that outlasts the host
// timeout is journaled, then the frozen host is SIGKILLed and the session resumes from its newest checkpoint, judged
// as after any kill. The report's durability table has a freeze row. Seed 17's first 5 cycles: SIGKILL, freeze
// (work), freeze past the timeout, freeze (work), freeze (during a checkpoint write); the test checks that plan first.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { CycleEvent, FaultEvent, JournalEvent } from '../../harness/journal/events.js';
import { planFaultEntry, planKill } from '../../harness/nemesis/plan.js';
import { parseScenario } from '../../harness/scenario/scenario.js';
import { describeResult, soakIn } from '../helpers/cli.js';
import { expectOnlyTimingFailures } from '../helpers/gates.js';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'soak-freeze-e2e-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const HOST_TIMEOUT_MS = 3000;
const SCENARIO = `name: freeze-e2e
target: process
cycles: 5
seed: 17
stepMs: 5
checkpoint: { everyMs: 100 }
kill: { phases: { work: 2, checkpoint: 1 }, workDelayMs: [100, 400], checkpointDelayMs: [0, 3] }
faults:
  - { kind: sigkill }
  - { kind: freeze, weight: 2, durationMs: 800 }
  - { kind: freeze, durationMs: 60000 }
hostTimeoutMs: ${HOST_TIMEOUT_MS}
resumeTimeoutMs: 60000
`;

const events = (journal: string): JournalEvent[] =>
  readFileSync(journal, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as JournalEvent);

describe('freeze nemesis', () => {
  it('plan of seed 17 (so the run below covers each path)', () => {
    const s = parseScenario(SCENARIO, 'freeze-e2e.yaml');
    const plan = [1, 2, 3, 4, 5].map((c) => `${planFaultEntry(s, c).durationMs ?? 'kill'}/${planKill(s, c).phase}`);
    expect(plan).toEqual(['kill/work', '800/work', '60000/work', '800/work', '800/checkpoint']);
  });

  it('thawed freezes carry on without a kill; one past the host timeout is killed and resumed; durability row', async () => {
    writeFileSync(path.join(tmp, 'freeze-e2e.yaml'), SCENARIO);
    const r = await soakIn(() => tmp, 600_000)(
      'run',
      '--scenario',
      'freeze-e2e.yaml',
      '--out',
      'runs',
      '--report-dir',
      'reports',
    );
    // 5 cycles: insufficient data; only a gate on measured time may fail (a loaded machine), never another
    await expectOnlyTimingFailures(r.exitCode, path.join(tmp, 'runs', 'latest'), describeResult(r));
    const es = events(path.join(tmp, 'runs', 'latest', 'journal.ndjson'));
    const inCycle = (c: number, type: JournalEvent['type']) =>
      es.filter((e) => e.type === type && 'cycle' in e && e.cycle === c);
    const outcome = (c: number) => inCycle(c, 'cycle')[0] as CycleEvent;
    const faults = es.filter((e): e is FaultEvent => e.type === 'fault');
    expect(faults.map((f) => [f.cycle, f.kind, f.durationMs])).toEqual([
      [2, 'freeze', 800],
      [3, 'freeze', 60000],
      [4, 'freeze', 800],
      [5, 'freeze', 800],
    ]);
    // a fault after a restore names at least the restored checkpoint as acknowledged (before a new commit too)
    for (const f of faults) {
      const restoredBefore = es.filter((e) => e.type === 'restore' && e.t < f.t).at(-1);
      if (restoredBefore?.type === 'restore') expect(f.acknowledgedSeq).toBeGreaterThanOrEqual(restoredBefore.seq);
    }
    for (const c of [2, 4, 5]) {
      // the same session carried on: no kill, no new host, checked, nothing lost (unless the machine hung it)
      expect(inCycle(c, 'kill')).toEqual([]);
      expect(inCycle(c, 'host-start')).toEqual([]);
      const o = outcome(c);
      expect(o.outcome, JSON.stringify(o)).not.toBe('fail');
      if (o.outcome === 'ok') expect([o.lostSteps, o.downtimeMs, o.restoredSeq]).toEqual([0, null, null]);
    }
    // past the host timeout: killed (held stopped at least that long), resumed from a checkpoint, judged as a kill
    const fault3 = faults.find((f) => f.cycle === 3)!;
    const [kill3] = inCycle(3, 'kill');
    expect(kill3!.t - fault3.t).toBeGreaterThanOrEqual(HOST_TIMEOUT_MS * 0.95);
    expect(kill3!.t - fault3.t).toBeLessThan(60_000);
    expect(inCycle(3, 'host-start').map((e) => (e as { mode: string }).mode)).toEqual(['restore']);
    expect(outcome(3).outcome, JSON.stringify(outcome(3))).toBe('ok');
    expect(outcome(3).restoredSeq).not.toBeNull();
    const reports = path.join(tmp, 'reports');
    const md = readFileSync(
      path.join(
        reports,
        readdirSync(reports).find((d) => d.endsWith('freeze-e2e'))!,
        'summary.md',
      ),
      'utf8',
    );
    expect(md).toMatch(/^\| freeze \| 4 \| \d \| 0 \| \d \|/m);
    expect(md).toMatch(/^- Tested: freeze \(SIGSTOP.*, n = 4\.$/m);
    expect(md).toMatch(/^- Not tested: power loss .*, n = 0\.$/m);
    const html = readFileSync(
      path.join(
        reports,
        readdirSync(reports).find((d) => d.endsWith('freeze-e2e'))!,
        'index.html',
      ),
      'utf8',
    );
    expect(html).toMatch(/<li>Tested: freeze \(SIGSTOP[^<]*, n = 4\.<\/li>/);
    expect(html).toMatch(/<li>Not tested: a second region[^<]*, n = 0\.<\/li>/);
  }, 600_000);
});
