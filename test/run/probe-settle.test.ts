// RunProbes.settle: a fresh session's resumed host is stopped only once its probe spoke (or exited, or 60 s passed).
// The hosts are stand-ins with the three fields settle reads (a real host needs a whole session: the e2e tests).
import { describe, expect, it } from 'vitest';
import { RunProbes } from '../../harness/run/probe-run.js';
import type { Scenario } from '../../harness/scenario/scenario.js';
import type { HostHandle } from '../../harness/session/host-handle.js';

type Fields = Pick<HostHandle, 'restoredFrom' | 'probeWord' | 'exited'>;
const host = (f: Partial<Fields>): Fields => ({
  restoredFrom: { seq: 1, step: 1 },
  probeWord: null,
  exited: null,
  ...f,
});

describe('RunProbes.settle', () => {
  it('waits for a resumed host’s probe word; not for a booted host or one that exited', async () => {
    const probes = (await RunProbes.start({ probe: true } as Scenario))!;
    const resumed = host({});
    const word = { event: 'error', message: 'spoken' } as const;
    setTimeout(() => (resumed.probeWord = word), 200);
    await probes.settle(resumed as HostHandle);
    expect(resumed.probeWord).toBe(word); // settle returned only once the word was there

    const booted = host({ restoredFrom: null });
    await probes.settle(booted as HostHandle);
    expect(booted.probeWord).toBeNull();
    const gone = host({ exited: { exitCode: 1, signal: undefined } });
    await probes.settle(gone as HostHandle);
    expect(gone.probeWord).toBeNull();
  });
});
