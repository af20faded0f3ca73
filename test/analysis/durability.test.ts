// The durability table: each cycle's fault joined with its outcome, counted per kind with a Wilson interval over the
// judged cycles; no table when nothing but SIGKILL was delivered; the last outcome of a cycle id wins (in its session:
// a run of several sessions repeats every cycle id once per session).
import { describe, expect, it } from 'vitest';
import { durabilityRows } from '../../harness/analysis/durability.js';
import type { JournalEvent, Outcome } from '../../harness/journal/events.js';
import { durabilityLines } from '../../harness/report/text/durability.js';
import { wilson } from '../../harness/stats/wilson.js';

const cycle = (n: number, outcome: Outcome) => ({ type: 'cycle', cycle: n, outcome }) as unknown as JournalEvent;
const fault = (n: number) =>
  ({ type: 'fault', cycle: n, kind: 'power-loss', acknowledgedSeq: 1, acknowledgedStep: 1 }) as unknown as JournalEvent;

describe('durabilityRows', () => {
  it('is empty for a SIGKILL-only run', () => {
    expect(durabilityRows([[cycle(1, 'ok'), cycle(2, 'fail')]])).toEqual([]);
  });

  it('counts trials and outcomes per fault kind, with the Wilson interval of ok among judged cycles', () => {
    const run = [cycle(1, 'ok'), fault(2), cycle(2, 'fail'), fault(3), cycle(3, 'ok'), cycle(4, 'indeterminate')];
    const again = [fault(1), cycle(1, 'ok'), cycle(1, 'ok')]; // a second run; a repeated cycle id counts once
    expect(durabilityRows([run, again])).toEqual([
      { kind: 'power-loss', trials: 3, ok: 2, fail: 1, indeterminate: 0, causes: {}, interval: wilson(2, 3) },
      {
        kind: 'sigkill',
        trials: 2,
        ok: 1,
        fail: 0,
        indeterminate: 1,
        causes: { 'host-exited': 1 },
        interval: wilson(1, 1),
      },
    ]);
  });

  it('counts an injected write error as indeterminate with its errno, never as ok, and the table shows the errno', () => {
    const eio = (n: number) =>
      ({ type: 'fault', cycle: n, kind: 'eio', acknowledgedSeq: 1, acknowledgedStep: 1 }) as unknown as JournalEvent;
    const failed = (n: number, code: string) =>
      ({ type: 'cycle', cycle: n, outcome: 'indeterminate', cause: { code, message: 'x' } }) as unknown as JournalEvent;
    const rows = durabilityRows([[eio(1), failed(1, 'eio'), eio(2), failed(2, 'eio'), eio(3), failed(3, 'host-hung')]]);
    expect(rows).toEqual([
      { kind: 'eio', trials: 3, ok: 0, fail: 0, indeterminate: 3, causes: { eio: 2, 'host-hung': 1 }, interval: null },
    ]);
    expect(durabilityLines(rows)).toContain('| eio | 3 | 0 | 0 | 3 (eio 2, host-hung 1) | n/a |');
  });

  it("counts each session's cycle of a run of several sessions, its fault kind taken from its own session", () => {
    const of = (e: JournalEvent, session: number) => ({ ...e, ...(session === 0 ? {} : { session }) }) as JournalEvent;
    const run = [0, 1, 2].flatMap((s) => [of(fault(1), s), of(cycle(1, 'ok'), s), of(cycle(2, 'ok'), s)]);
    expect(durabilityRows([run]).map((r) => [r.kind, r.trials, r.ok])).toEqual([
      ['power-loss', 3, 3],
      ['sigkill', 3, 3],
    ]);
  });
});
