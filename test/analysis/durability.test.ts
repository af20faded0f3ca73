// The durability table: each cycle's fault joined with its outcome, counted per kind with a Wilson interval over the
// judged cycles; no table when nothing but SIGKILL was delivered; the last outcome of a cycle id wins.
import { describe, expect, it } from 'vitest';
import { durabilityRows } from '../../harness/analysis/durability.js';
import type { JournalEvent, Outcome } from '../../harness/journal/events.js';
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
      { kind: 'power-loss', trials: 3, ok: 2, fail: 1, indeterminate: 0, interval: wilson(2, 3) },
      { kind: 'sigkill', trials: 2, ok: 1, fail: 0, indeterminate: 1, interval: wilson(1, 1) },
    ]);
  });
});
