// The recorded environment: kernel release (not the build string), virtualisation, and a machine label that never
// names the host.
import os from 'node:os';
import { describe, expect, it } from 'vitest';
import { captureEnvironment, kernelRelease, machineLabel } from '../../harness/core/environment.js';

describe('captureEnvironment', () => {
  const env = captureEnvironment({});
  it('records the kernel release, its build string apart, and what the machine runs inside', () => {
    expect(env.kernel).toBe(os.release());
    expect(env.kernelBuild).toBe(os.version());
    expect(env.virtualization).toMatch(/\S/);
    expect(env.cores).toBe(os.cpus().length);
  });

  it('labels the machine by CPU, cores and kernel with a short hash, never by hostname', () => {
    const label = machineLabel(env);
    expect(label).toMatch(/, \d+ cores, kernel .+ \(#[0-9a-f]{8}\)$/);
    expect(label).not.toContain(os.hostname());
    expect(machineLabel({ ...env, cores: env.cores + 1 })).not.toBe(label); // another machine, another label
  });

  it('reads the release of an older journal, whose kernel field held the build string, from its os field', () => {
    expect(kernelRelease({ kernel: '#1 SMP PREEMPT_DYNAMIC @0', os: 'Linux 6.18.44-fc-v657' })).toBe('6.18.44-fc-v657');
    expect(kernelRelease({ kernel: '6.1.0', os: 'Linux 6.1.0' })).toBe('6.1.0');
  });
});
