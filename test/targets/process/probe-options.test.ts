// targetOptions.probe (set by `soak target check --matrix`): the process and exec targets take an absolute path and
// refuse anything else by its field, with every other problem.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseExecOptions } from '../../../harness/targets/exec/target.js';
import { parseMicrovmTargetOptions } from '../../../harness/targets/microvm/options.js';
import { parseProcessOptions } from '../../../harness/targets/process/target.js';
import { repoRoot } from '../../helpers/paths.js';

const adapter = path.join(repoRoot, 'adapters', 'example', 'adapter.mjs');

describe('targetOptions.probe', () => {
  it('takes an absolute path', () => {
    expect(parseProcessOptions({ probe: '/bin/true' }).probe).toBe('/bin/true');
    expect(parseExecOptions({ adapter, probe: '/bin/true' }).probe).toBe('/bin/true');
    expect(parseProcessOptions({}).probe).toBeUndefined();
  });

  it('refuses a relative path or another type, naming the field', () => {
    expect(() => parseProcessOptions({ probe: 'probe' })).toThrow(
      /targetOptions\.probe: set by `soak target check --matrix`/,
    );
    expect(() => parseExecOptions({ adapter, probe: 7 })).toThrow(
      /targetOptions\.probe: set by `soak target check --matrix`/,
    );
  });

  it('probeClockAfter (--clock-after): distinct seconds of 1, 5, 30, with the probe; else refused by its field', () => {
    expect(parseProcessOptions({ probe: '/bin/true', probeClockAfter: [30, 1] }).clockAfter).toEqual([1, 30]);
    expect(parseMicrovmTargetOptions({ probe: '/bin/true', probeClockAfter: [5] }).clockAfter).toEqual([5]);
    for (const bad of [[2], [1, 1], '1'])
      expect(() => parseProcessOptions({ probe: '/bin/true', probeClockAfter: bad })).toThrow(
        /targetOptions\.probeClockAfter: set by `soak target check --matrix --clock-after`/,
      );
    expect(() => parseMicrovmTargetOptions({ probeClockAfter: [1] })).toThrow(/targetOptions\.probeClockAfter/);
  });
});
