// The tested-environment rows: how fresh microvm sessions started is stated in words (template snapshot or cold boot).
import { describe, expect, it } from 'vitest';
import type { Environment } from '../../harness/core/environment.js';
import { environmentRows } from '../../harness/report/environment-rows.js';

const env = (target: Environment['target']): Environment => ({
  os: 'Linux',
  arch: 'x64',
  cpuModel: 'cpu',
  cores: 2,
  memoryGiB: 4,
  kernel: '6.1.0',
  node: 'v20',
  harnessVersion: '0.1.0',
  gitCommit: 'abc',
  target,
});

const row = (target: Environment['target']): string | undefined =>
  environmentRows(env(target), 'microvm').find(([label]) => label === 'Fresh session start')?.[1];

describe('environmentRows: fresh session start', () => {
  it('says template snapshot, or cold boot, and nothing for targets that do not report it', () => {
    expect(row({ freshStart: 'template' })).toMatch(/^template snapshot/);
    expect(row({ freshStart: 'cold' })).toMatch(/^cold boot/);
    expect(row({ accelerator: 'tcg' })).toBeUndefined();
  });
});
