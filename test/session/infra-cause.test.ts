// Which failures make a cycle indeterminate (the machine's) and which stay failures (the system's): each cause code,
// and the negative control that a target's own error is not excused as infrastructure.
import { describe, expect, it } from 'vitest';
import { HostTimeoutError, SessionHungError } from '../../harness/core/errors.js';
import { causeOf, sessionFailure } from '../../harness/session/infra-cause.js';
import type { HostHandle } from '../../harness/session/host-handle.js';

/** A host that is gone with `exit`, having said `said` (or nothing). */
function goneHost(exitCode: number, said: string | null = null, code: string | null = null): HostHandle {
  return {
    pid: 42,
    exited: { exitCode, signal: undefined },
    errorMessage: said,
    errorCode: code,
    describeExit: () => `exit code ${exitCode}${said ? `: ${said}` : ''}`,
  } as unknown as HostHandle;
}

describe('causeOf', () => {
  it('a wait that timed out: host-hung', () => {
    const err = new HostTimeoutError('host 42 sent no checkpoint-begin within 3000 ms (hung or stopped)');
    expect(causeOf(err, null)).toEqual({ code: 'host-hung', message: err.message });
  });

  it("a session stuck while its host answered is no harness fault (null): the cycle fails with the error's code", () => {
    const hung = new SessionHungError(
      'the session of host 42 sent no full heartbeat within 4000 ms, while its host answered',
    );
    expect(causeOf(hung, null)).toBeNull();
    expect(sessionFailure(hung)).toEqual({ code: 'session-hung', message: hung.message });
    const stuck = new SessionHungError('checkpoint 3 of host 42 paused the session 2000 ms', 'checkpoint-stuck');
    expect(causeOf(stuck, null)).toBeNull();
    expect(sessionFailure(stuck).code).toBe('checkpoint-stuck');
    // any other failure of the session to resume keeps the no-resume code, with what failed
    expect(
      sessionFailure(new Error('host 42 exited (exit code 4)'), 'session did not carry on after a freeze'),
    ).toEqual({
      code: 'no-resume',
      message: 'session did not carry on after a freeze: host 42 exited (exit code 4)',
    });
  });

  it('a host that said ENOSPC or EIO: enospc / eio, with what it said', () => {
    const said = 'ENOSPC: no space left on device, write';
    expect(causeOf(new Error('host 42 exited'), goneHost(1, said, 'ENOSPC'))).toEqual({
      code: 'enospc',
      message: said,
    });
    expect(causeOf(new Error('x'), goneHost(1, 'EIO: i/o error, read'))?.code).toBe('eio');
  });

  it('a host that exited 3 because the store is locked: lock-conflict', () => {
    const said = 'store /r/store: its lock is held by pid 7 (gc)';
    expect(causeOf(new Error('host 42 exited'), goneHost(3, said))).toEqual({ code: 'lock-conflict', message: said });
  });

  it('a host that died with nothing to say: host-exited', () => {
    expect(causeOf(new Error('host 42 exited'), goneHost(0))?.code).toBe('host-exited');
  });

  it('negative control: a target that failed on its own is no infrastructure fault (null: the cycle fails)', () => {
    expect(causeOf(new Error('host 42 exited'), goneHost(1, 'restore: manifest 3 names a missing chunk'))).toBeNull();
    expect(causeOf(new Error('host 42 exited'), goneHost(3, 'targetOptions.x: unknown option'))).toBeNull();
  });
});
