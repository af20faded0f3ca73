// The tested-environment rows: how fresh microvm sessions started is stated in words (template snapshot or cold boot).
import { WARM_SOURCE } from '../../harness/store/read/warm-chunks.js';
import { describe, expect, it } from 'vitest';
import type { Environment } from '../../harness/core/environment.js';
import { environmentRows, restoreSourceRow, resumeHostRow } from '../../harness/report/environment-rows.js';

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

describe('environmentRows: guest workload', () => {
  it('says what ran in the guest in words, an unknown value as it is, nothing when the target does not say', () => {
    const workload = (target: Environment['target']): string | undefined =>
      environmentRows(env(target), 'microvm').find(([label]) => label === 'Guest workload')?.[1];
    expect(workload({ workload: 'coding' })).toMatch(/^coding agent .*compile it with tcc.*fails the cycle/);
    expect(workload({ workload: 'steps' })).toMatch(/^agent steps only/);
    expect(workload({ workload: 'other' })).toBe('other');
    expect(workload({ accelerator: 'tcg' })).toBeUndefined();
  });
});

describe('resumeHostRow', () => {
  it('says which host took the resumes: cold, a warm standby with its copy, or a pool host that read nothing ahead', () => {
    expect(resumeHostRow(false)[1]).toMatch(/^cold/);
    expect(resumeHostRow(true)[1]).toMatch(/^warm standby .*warm copy/);
    expect(resumeHostRow('pool')[1]).toMatch(/^pool host .*read nothing of the session before the kill/);
    expect(resumeHostRow(undefined)[1]).toMatch(/not recorded/);
  });
});

describe('restoreSourceRow', () => {
  it('says the store, or how many restores read the verified hot copy and why the others fell back', () => {
    expect(restoreSourceRow(undefined)).toBeNull(); // a target that does not say (process target, older runs)
    expect(restoreSourceRow({ store: 12 })).toEqual([
      'Restore source',
      'the store (every part rebuilt and checked against its SHA-256): 12 of 12 restores',
    ]);
    expect(
      restoreSourceRow({
        hot: 10,
        'store (ram: digest mismatch)': 1,
        'store (ram: no hot copy of this checkpoint)': 1,
      }),
    ).toEqual([
      'Restore source',
      "hot local copy, verified against the store's SHA-256 before the guest ran: 10 of 12 restores; 2 read parts from the " +
        'store instead (1: store (ram: digest mismatch); 1: store (ram: no hot copy of this checkpoint))',
    ]);
  });

  it("names the warm standby's copy apart from a read at the kill, never as a hot copy", () => {
    expect(restoreSourceRow({ [WARM_SOURCE]: 7, store: 1 })).toEqual([
      'Restore source',
      'the store (every part rebuilt and checked against its SHA-256): 1 of 8 restores; the store through the warm ' +
        "standby's copy (every chunk checked against its SHA-256 as the standby read it, before the kill; what was " +
        'committed after, read at the kill): 7 of 8 restores',
    ]);
    expect(restoreSourceRow({ [WARM_SOURCE]: 3 })![1]).toMatch(/^the store through the warm standby's copy .*: 3 of 3/);
    expect(restoreSourceRow({ hot: 2, [WARM_SOURCE]: 1 })![1]).not.toMatch(/read parts from the store instead/);
  });
});
