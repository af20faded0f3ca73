// The watch page's figures: the report's own sentences and gates, and an ETA from the pace so far (none once ended).
import { describe, expect, it } from 'vitest';
import { findings } from '../../harness/report/findings.js';
import { watchSnapshot } from '../../harness/watch/snapshot.js';
import { fmtAnytimeDecision } from '../../harness/report/text/anytime-format.js';
import { makeAnalysis, makeGates } from '../report/fixtures.js';
import { judgement } from '../../harness/gates/judge.js';

describe('watchSnapshot', () => {
  const a = makeAnalysis({ cycles: 20 });
  const j = judgement(makeGates(a), { violations: 0, negativeControl: false, trials: 20 });
  const running = { ...a, summary: { ...a.summary, runStatus: { status: 'unknown' as const } } };

  it('ETA = cycles left x time per cycle so far, while the run has no run-end', () => {
    const s = watchSnapshot('/r', running, j, { planned: 80, elapsedMs: 10_000 });
    expect(s.cycles).toMatchObject({ done: 20, planned: 80 });
    expect(s.etaS).toBe(30); // 60 left at 0.5 s each
    expect(s.status).toMatch(/^running/);
  });

  it('no ETA once the run ended, or without a plan', () => {
    const ended = { ...a, summary: { ...a.summary, runStatus: { status: 'complete' as const } } };
    expect(watchSnapshot('/r', ended, j, { planned: 80, elapsedMs: 10_000 }).etaS).toBeNull();
    expect(watchSnapshot('/r', running, j, { planned: null, elapsedMs: 10_000 }).etaS).toBeNull();
  });

  it('carries the report’s findings and one row per gate, and histogram counts that add up to the downtimes', () => {
    const s = watchSnapshot('/r', a, j, { planned: 20, elapsedMs: 1 });
    expect(s.findings).toEqual(findings(a));
    expect(s.gates.map((g) => g.id)).toEqual(j.gates.map((g) => g.id));
    expect(s.gates.map((g) => g.anytimeState)).toEqual(j.gates.map((g) => g.anytime?.decision ?? 'undecided'));
    expect(s.gates.map((g) => g.anytime)).toEqual(j.gates.map(fmtAnytimeDecision));
    expect(s.histogram.reduce((n, b) => n + b.count, 0)).toBe(a.downtimes.length);
  });
});

describe('watchSnapshot of a run of several sessions at once (issue 36)', () => {
  const a = makeAnalysis({ cycles: 6 });
  const j = judgement(makeGates(a), { violations: 0, negativeControl: false, trials: 6 });
  const row = (session: number, total: number, failed: number) =>
    ({ session, cycles: { total, resumed: total - failed, failed, indeterminate: 0 } }) as NonNullable<
      typeof a.summary.sessions
    >['rows'][number];
  const sessions = {
    count: 2,
    rows: [row(0, 4, 1), row(1, 2, 0)],
    dedup: { pooledRatio: null, apartBytes: null, apartRatio: null, sharedSaving: null, meanSessionRatio: null },
  };
  const running = { ...a, summary: { ...a.summary, runStatus: { status: 'unknown' as const }, sessions } };

  it("shows each session's progress against its own plan, and the run's against cycles x sessions", () => {
    const s = watchSnapshot('/r', running, j, { planned: 20, elapsedMs: 6_000, sessions: 2 });
    expect(s.cycles).toMatchObject({ done: 6, planned: 20 });
    expect(s.sessions).toEqual([
      { session: 0, done: 4, planned: 10, failed: 1, indeterminate: 0 },
      { session: 1, done: 2, planned: 10, failed: 0, indeterminate: 0 },
    ]);
    expect(s.etaS).toBe(14); // 14 left at 1 s each
  });

  it('a run of one session has no session rows', () => {
    expect(watchSnapshot('/r', a, j, { planned: 6, elapsedMs: 1 }).sessions).toEqual([]);
  });
});
