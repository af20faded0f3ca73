// The process target's targetOptions.effects (issue 34): the runner's (ledger on 127.0.0.1, seed, rate) is taken; one
// written by hand, pointing elsewhere or malformed, is refused naming the field; without it the options are as before.
import { describe, expect, it } from 'vitest';
import { ConfigIssuesError } from '../../../harness/core/config-issues.js';
import { parseProcessOptions } from '../../../harness/targets/process/target.js';

describe('process target effects option', () => {
  it("takes the runner's effects config and leaves options without it unchanged", () => {
    const effects = { ledger: '127.0.0.1:40123', seed: 1, everySteps: 2 };
    expect(parseProcessOptions({ effects })).toEqual({ heapKiB: 1024, effects });
    expect(parseProcessOptions({})).toEqual({ heapKiB: 1024 });
  });

  it('refuses a ledger off loopback, a bad rate or a non-object, naming targetOptions.effects', () => {
    for (const effects of [
      { ledger: '10.0.0.1:80', seed: 1, everySteps: 2 },
      { ledger: '127.0.0.1:1', seed: 1, everySteps: 0 },
      'yes',
    ]) {
      let err: unknown;
      try {
        parseProcessOptions({ effects });
      } catch (e) {
        err = e;
      }
      expect(err, JSON.stringify(effects)).toBeInstanceOf(ConfigIssuesError);
      expect(JSON.stringify((err as ConfigIssuesError).issues)).toContain('"targetOptions","effects"');
    }
  });
});
