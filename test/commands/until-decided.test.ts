// The flags of `soak run --until-decided`: the budget flags only with it, never beside the flags they replace, and
// durations and cycle counts checked with a message naming the flag the user typed.
import { describe, expect, it, vi } from 'vitest';
import { InputError } from '../../harness/core/errors.js';
import { decideAfterCycle, parseDurationS, untilDecidedOverrides } from '../../harness/commands/until-decided.js';

describe('--until-decided flags', () => {
  it('turn into scenario overrides: the budget flags replace --cycles and --budget-s', () => {
    expect(untilDecidedOverrides({})).toEqual({ cycles: undefined, budgetS: undefined });
    expect(untilDecidedOverrides({ cycles: 9, budgetS: 60 })).toEqual({ cycles: 9, budgetS: 60 });
    expect(untilDecidedOverrides({ untilDecided: true, maxCycles: 200, maxDuration: '15m' })).toEqual({
      untilDecided: true,
      cycles: 200,
      budgetS: 900,
    });
    expect(untilDecidedOverrides({ untilDecided: true, cycles: 80 })).toMatchObject({ cycles: 80 });
  });

  it('reads 90s, 15m, 2h and plain seconds; refuses anything else naming the flag', () => {
    expect([
      parseDurationS('90s', 'f'),
      parseDurationS('15m', 'f'),
      parseDurationS('2h', 'f'),
      parseDurationS('30', 'f'),
    ]).toEqual([90, 900, 7200, 30]);
    for (const bad of ['', '0', '-5m', '1d', '5 parsecs', 'm'])
      expect(() => parseDurationS(bad, '--max-duration')).toThrow(/^--max-duration: expected a duration/);
  });

  it('refuses the budget without --until-decided, twice-set budgets and a cycle count that is not a positive whole number', () => {
    const refuse = (args: Parameters<typeof untilDecidedOverrides>[0], message: RegExp) =>
      expect(() => untilDecidedOverrides(args)).toThrow(message);
    refuse({ maxCycles: 5 }, /are the budget of --until-decided/);
    refuse({ untilDecided: true, maxCycles: 5, cycles: 3 }, /both set the cycles/);
    refuse({ untilDecided: true, maxDuration: '1m', budgetS: 3 }, /both set the time budget/);
    refuse({ untilDecided: true, maxCycles: 0 }, /^--max-cycles: expected a positive whole number of cycles, got 0$/);
    refuse({ untilDecided: true, maxCycles: 2.5 }, /^--max-cycles: expected a positive whole number/);
    expect(() => untilDecidedOverrides({ maxCycles: 5 })).toThrow(InputError);
  });

  it('a run that cannot be judged after a cycle runs on (null), saying why on stderr', async () => {
    const write = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      expect(await decideAfterCycle(undefined, false)('/nonexistent/run-folder')).toBeNull();
      expect(String(write.mock.calls[0]?.[0])).toMatch(/^soak: could not judge the run so far \(.*\); running on\n$/);
    } finally {
      write.mockRestore();
    }
  });
});
