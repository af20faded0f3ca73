// targetOptions.probe (set by `soak target check --matrix`): the process and exec targets take an absolute path and
// refuse anything else by its field, with every other problem.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseExecOptions } from '../../../harness/targets/exec/target.js';
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
});
