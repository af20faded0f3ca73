// Re-judging stored observations: the observation event round-trips the checker's input; a consistent stored
// observation re-checks to its journaled verdict, and one edited to be inconsistent is a changed verdict (negative
// control); a journal with no observations re-checks nothing (exit 2).
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkResume, type ResumeObservation } from '../../harness/check/checker.js';
import { WorkloadModel } from '../../harness/check/workload.js';
import { encodeEvent, FIELD_ORDER } from '../../harness/journal/codec.js';
import type { CycleEvent, JournalEvent, ObservationEvent } from '../../harness/journal/events.js';
import { observationEvent, resumeObservation } from '../../harness/journal/observation.js';
import { Rechecker, recheckExitCode } from '../../harness/analysis/recheck.js';
import { readJournal } from '../../harness/journal/reader.js';
import { fixtureJournals, fixtureNames, fixtureText } from '../helpers/journals.js';

const model = new WorkloadModel();
const NONCE = '0123456789abcdef';

/** Killed at step 40, checkpoint 5 (step 32) restored; resumed at step `at` with the model's digests. */
function observed(at: number): ResumeObservation {
  const want = model.expected(at);
  return {
    heartbeat: {
      step: at,
      nonce: NONCE,
      full: true,
      fs: { step: at, digest: want.fs },
      mem: { step: at, digest: want.mem },
      tool: { step: at, digest: want.tool },
    },
    restored: { seq: 5, step: 32 },
    killStep: 40,
    nonce: NONCE,
    latestCompleteSeq: 5,
  };
}

const stamp = <E>(e: E): E & { schemaVersion: 1; t: number } => ({ schemaVersion: 1, t: 0, ...e });

/** The observation and cycle events the runner journals for `obs` in cycle `cycle`. */
function cycleEvents(cycle: number, obs: ResumeObservation): [ObservationEvent, CycleEvent] {
  const violations = checkResume(obs, new WorkloadModel());
  const cycleEvent: CycleEvent = stamp({
    type: 'cycle',
    cycle,
    phase: 'work',
    observedPhase: 'work',
    outcome: violations.length === 0 ? 'ok' : 'fail',
    downtimeMs: 300,
    killStep: obs.killStep,
    restoredSeq: obs.restored.seq,
    restoredStep: obs.restored.step,
    lostSteps: obs.killStep - obs.restored.step,
    restoreKills: 0,
    violations,
  });
  return [stamp(observationEvent(cycle, obs)), cycleEvent];
}

const recheck = (events: JournalEvent[]) => {
  const r = new Rechecker();
  for (const e of events) r.add(e);
  return r.result();
};

describe('the observation event', () => {
  it('round-trips the checker input through a journal line, flat, in codec order', () => {
    const obs = observed(37);
    const line = encodeEvent(stamp(observationEvent(4, obs)));
    const optional = ['acknowledgedSeq', 'ran', 'work', 'workBefore', 'session']; // not written here
    const always = FIELD_ORDER.observation.filter((k) => !optional.includes(k));
    expect(Object.keys(JSON.parse(line) as object)).toEqual(['schemaVersion', 't', 'type', ...always]);
    expect(resumeObservation(JSON.parse(line) as ObservationEvent)).toEqual(obs);
    const work = { iteration: 12, failures: 1, served: 12, last: 'test' };
    const afterPowerLoss = {
      ...obs,
      heartbeat: { ...obs.heartbeat, work },
      acknowledgedSeq: 9,
      ran: { ms: 12.5, stepMs: 5 },
      workBefore: 1,
    };
    const line2 = encodeEvent(stamp(observationEvent(4, afterPowerLoss)));
    expect(Object.keys(JSON.parse(line2) as object)).toEqual([
      'schemaVersion',
      't',
      'type',
      ...FIELD_ORDER.observation.filter((k) => k !== 'session'),
    ]);
    expect(resumeObservation(JSON.parse(line2) as ObservationEvent)).toEqual(afterPowerLoss);
  });

  it('keeps a heartbeat that is not full without parts, and the checker still says so', () => {
    const obs: ResumeObservation = { ...observed(37), heartbeat: { step: 37, nonce: NONCE, full: false } };
    const back = resumeObservation(JSON.parse(encodeEvent(stamp(observationEvent(1, obs)))) as ObservationEvent);
    expect(back).toEqual(obs);
    expect(checkResume(back, model).map((v) => v.code)).toEqual(['not-full']);
  });
});

describe('Rechecker', () => {
  it('agrees with the journaled verdicts of consistent observations (exit 0)', () => {
    const r = recheck([...cycleEvents(1, observed(36)), ...cycleEvents(2, observed(40))]);
    expect(r).toMatchObject({ cycles: 2, rechecked: 2, agreed: 2, changed: [], unobserved: 0, journaledFailures: 0 });
    expect(recheckExitCode(r)).toBe(0);
  });

  it('negative control: a stored observation edited to be inconsistent (mem digest changed) is a changed verdict (exit 1)', () => {
    const [obs, outcome] = cycleEvents(2, observed(38));
    const edited: ObservationEvent = { ...obs, mem: { step: 38, digest: 'f'.repeat(64) } };
    const r = recheck([...cycleEvents(1, observed(36)), edited, outcome]);
    expect(r.agreed).toBe(1);
    expect(r.changed).toEqual([
      {
        cycle: 2,
        journaled: { outcome: 'ok', codes: [] },
        rechecked: { outcome: 'fail', violations: [expect.objectContaining({ code: 'digest' })] },
      },
    ]);
    expect(recheckExitCode(r)).toBe(1);
  });

  it("re-judges a coding workload failure from the stored observation: only failures past the killed host's start fail", () => {
    const base = observed(37);
    const work = { iteration: 9, failures: 2, served: 9, last: 'serve' };
    const [stored, outcome] = cycleEvents(1, { ...base, heartbeat: { ...base.heartbeat, work }, workBefore: 2 });
    expect(outcome.outcome).toBe('ok');
    expect(recheck([stored, outcome])).toMatchObject({ rechecked: 1, agreed: 1, changed: [] });
    const r = recheck([{ ...stored, workBefore: 1 }, outcome]); // control: one failure more than the start had
    expect(r.changed).toEqual([
      {
        cycle: 1,
        journaled: { outcome: 'ok', codes: [] },
        rechecked: { outcome: 'fail', violations: [expect.objectContaining({ code: 'work-failed' })] },
      },
    ]);
  });

  it('re-judges a resume one step past the kill with the time it ran (ok); without that time it is ahead (control)', () => {
    const obs = { ...observed(41), ran: { ms: 4, stepMs: 5 } };
    const [stored, outcome] = cycleEvents(1, obs);
    expect(outcome.outcome).toBe('ok');
    expect(recheck([stored, outcome])).toMatchObject({ rechecked: 1, agreed: 1, changed: [] });
    const { ran: _ran, ...untimed } = stored;
    const r = recheck([untimed, outcome]);
    expect(r.changed).toEqual([
      {
        cycle: 1,
        journaled: { outcome: 'ok', codes: [] },
        rechecked: { outcome: 'fail', violations: [expect.objectContaining({ code: 'ahead' })] },
      },
    ]);
  });

  it('a failed cycle whose verdict is found again agrees, and still exits 1 (the run has violations)', () => {
    const bad = observed(39);
    const r = recheck(cycleEvents(1, { ...bad, heartbeat: { ...bad.heartbeat, nonce: 'other' } }));
    expect(r).toMatchObject({ rechecked: 1, agreed: 1, journaledFailures: 1, recheckedFailures: 1 });
    expect(recheckExitCode(r)).toBe(1);
  });

  it("an adapter fault is the adapter's (exit 5, as the run's verdict); a violation of the system outranks it (exit 1)", () => {
    const adapterFault = { code: 'adapter-fault', message: 'adapter x (pid 9), request restore #3: exited' } as const;
    const [, ok] = cycleEvents(2, observed(36));
    const faulted: CycleEvent = {
      ...ok,
      outcome: 'fail',
      downtimeMs: null,
      restoredSeq: null,
      violations: [adapterFault],
    };
    const r = recheck([...cycleEvents(1, observed(36)), faulted]);
    expect(r).toMatchObject({ journaledFailures: 1, adapterFaults: 1, systemFailures: 0, unobserved: 1 });
    expect(recheckExitCode(r)).toBe(5);
    // a runner ended by an adapter fault at a boot counts too
    const end = stamp({
      type: 'run-end',
      status: 'aborted',
      cycles: 0,
      reason: 'adapter fault: request boot #1: garbage',
    });
    expect(recheckExitCode(recheck([...cycleEvents(1, observed(36)), end as JournalEvent]))).toBe(5);
    // negative control: with a failed cycle of the system beside it, FAIL (exit 1)
    const bad = observed(39);
    const both = recheck([...cycleEvents(1, { ...bad, heartbeat: { ...bad.heartbeat, nonce: 'other' } }), faulted]);
    expect(both).toMatchObject({ adapterFaults: 1, systemFailures: 1 });
    expect(recheckExitCode(both)).toBe(1);
    // a failed cycle with no violation listed is still the system's failure
    const bare = recheck([{ ...faulted, violations: [] }]);
    expect(bare).toMatchObject({ adapterFaults: 0, systemFailures: 1 });
    expect(recheckExitCode(bare)).toBe(1);
  });

  it('a later observation of the same cycle id (the run was resumed) replaces an earlier one', () => {
    const [stale] = cycleEvents(1, { ...observed(39), killStep: 2 });
    const r = recheck([stale, ...cycleEvents(1, observed(39))]);
    expect(r).toMatchObject({ rechecked: 1, agreed: 1, changed: [] });
  });

  it.each(fixtureNames.filter((n) => !fixtureText(n).includes('"type":"observation"')))(
    '%s (written before observations): nothing re-checked; exit 1 if it journaled failures (they outrank), else 2',
    (name) => {
      const { events } = readJournal(path.join(fixtureJournals, name, 'journal.ndjson'));
      const r = recheck(events);
      expect(r.rechecked).toBe(0);
      expect(r.unobserved).toBe(r.cycles);
      const failed = events.filter((e) => e.type === 'cycle' && e.outcome === 'fail').length;
      expect(r.journaledFailures).toBe(failed);
      expect(recheckExitCode(r)).toBe(failed > 0 ? 1 : 2);
    },
  );

  it.each(fixtureNames.filter((n) => fixtureText(n).includes('"type":"observation"')))(
    '%s (written with observations): every cycle re-checked, the same verdict',
    (name) => {
      const { events } = readJournal(path.join(fixtureJournals, name, 'journal.ndjson'));
      const r = recheck(events);
      expect(r.rechecked).toBe(r.cycles);
      expect(r.changed).toEqual([]);
    },
  );
});
