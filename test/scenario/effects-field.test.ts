// The scenario's effects field (issue 34): validated like every other field, and refused where the target cannot emit
// them (a micro-VM booted from a template), naming the field (an exec adapter is checked for its capability when the run starts:
// test/e2e/effects-exec.test.ts); a scenario without it is unchanged (the field stays absent).
import { describe, expect, it } from 'vitest';
import { ConfigIssuesError } from '../../harness/core/config-issues.js';
import { parseScenario } from '../../harness/scenario/scenario.js';

const parse = (lines: string[]) => () => parseScenario(['name: x', ...lines].join('\n'), 'x.yaml');

describe('scenario effects field', () => {
  it('takes effects.everySteps on the process target; absent, it stays absent', () => {
    expect(parse(['effects: { everySteps: 4 }'])().effects).toEqual({ everySteps: 4 });
    expect('effects' in parse([])()).toBe(false);
    expect(parse(['target: microvm', 'effects: { everySteps: 4 }'])().effects).toEqual({ everySteps: 4 });
  });

  it('refuses a bad rate, an unknown key, and a target that does not emit effects', () => {
    for (const [lines, want] of [
      [['effects: { everySteps: 0 }'], /effects\.everySteps/],
      [['effects: { everySteps: 2, often: true }'], /effects/],
      [
        ['target: microvm', 'targetOptions: { fresh: template }', 'effects: { everySteps: 2 }'],
        /effects: the microvm target emits effects only with targetOptions.fresh: cold/,
      ],
    ] as const) {
      let err: unknown;
      try {
        parse([...lines])();
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(ConfigIssuesError);
      expect((err as Error).message + JSON.stringify(err), lines.join()).toMatch(want);
    }
  });
});
