// A freeze cycle that thawed (SIGSTOP, SIGCONT, the same session carried on) killed nothing: it is no kill-and-resume
// trial (gate 6's n), has its own row in the durability table, and still counts as a cycle outcome. A freeze that
// outlasted the host timeout was SIGKILLed and resumed: that one is a trial. Same on every analysis path.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyze } from '../../harness/analysis/analyze.js';
import { durabilityRows } from '../../harness/analysis/durability.js';
import { loadRuns } from '../../harness/analysis/load-runs.js';
import { encodeEvent } from '../../harness/journal/codec.js';
import type { EventInput, JournalEvent, Outcome } from '../../harness/journal/events.js';
import { parseScenario } from '../../harness/scenario/scenario.js';
import { journalEvent, runStartEvent } from '../helpers/journal-events.js';

const scenario = parseScenario('name: freeze\ncycles: 6\nseed: 9\n', 'freeze.yaml');
const ev = (e: EventInput): JournalEvent => journalEvent(e, 1);
const kill = (cycle: number) =>
  ev({
    type: 'kill',
    cycle,
    phase: 'work',
    observedPhase: 'work',
    atStep: 50,
    nonce: 'n',
    lastCommittedSeq: 2,
    lastCommittedStep: 40,
    inFlightSeq: null,
  });
const freeze = (cycle: number) =>
  ev({ type: 'fault', cycle, kind: 'freeze', acknowledgedSeq: 2, acknowledgedStep: 40, durationMs: 500 });
const outcome = (cycle: number, o: Outcome, resumed: boolean) =>
  ev({
    type: 'cycle',
    cycle,
    phase: 'work',
    observedPhase: 'work',
    outcome: o,
    downtimeMs: resumed ? 300 : null,
    killStep: 50,
    restoredSeq: resumed ? 2 : null,
    restoredStep: resumed ? 40 : null,
    lostSteps: resumed ? 10 : 0,
    restoreKills: 0,
    violations: o === 'fail' ? [{ code: 'regressed', message: 'behind' }] : [],
  });
const start = (cycle: number) => ev({ type: 'cycle-start', cycle, phase: 'work' });

/** Cycles 1, 4: SIGKILL, resumed; 2, 5: freeze, thawed (5 failed its check); 3: freeze outlasted, killed, resumed. */
const events: JournalEvent[] = [
  runStartEvent(scenario, 'r', 1),
  start(1),
  kill(1),
  outcome(1, 'ok', true),
  start(2),
  freeze(2),
  outcome(2, 'ok', false),
  start(3),
  freeze(3),
  kill(3),
  outcome(3, 'ok', true),
  start(4),
  kill(4),
  outcome(4, 'ok', true),
  start(5),
  freeze(5),
  outcome(5, 'fail', false),
  ev({ type: 'run-end', status: 'complete', cycles: 5 }),
];

let tmp: string;
beforeAll(() => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'soak-freeze-'));
  writeFileSync(path.join(tmp, 'journal.ndjson'), events.map((e) => `${encodeEvent(e)}\n`).join(''));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('freeze cycles in the analysis', () => {
  it('a thawed freeze is no kill-and-resume trial; one that was killed and resumed is', () => {
    const s = analyze(events).summary;
    expect(s.killResume).toMatchObject({ successes: 3, trials: 3 }); // cycles 1, 3, 4
    expect(s.cycles).toMatchObject({ total: 5, resumed: 4, failed: 1 }); // outcomes: every cycle
    expect(s.violations).toBe(1); // the failed thaw is still a violation (gate 2)
    expect(s.lostSteps.n).toBe(3); // lost work of the resumed kills only
  });

  it('has its own row in the durability table', () => {
    const rows = durabilityRows([events]);
    expect(rows.map((r) => [r.kind, r.trials, r.ok, r.fail])).toEqual([
      ['freeze', 3, 2, 1],
      ['sigkill', 2, 2, 0],
    ]);
  });

  it('is the same on the fast path, through JSON.parse, and over 2 to 4 threads', async () => {
    const one = await loadRuns([tmp]);
    expect(one.analysis.summary.killResume).toMatchObject({ successes: 3, trials: 3 });
    expect(await loadRuns([tmp], { fastPath: false })).toEqual(one);
    for (let threads = 2; threads <= 4; threads++)
      expect(await loadRuns([tmp], { threads, parallelFromBytes: 0 }), `${threads} threads`).toEqual(one);
  });
});
