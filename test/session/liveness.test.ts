// Who is stuck when a wait on a session runs out: the host's first `alive` tick sent after the bound (its own timer,
// whatever its target does) decides. On time: the session (SessionHungError, the cycle fails); late by more than
// HOST_ALIVE_GAP_MS (the host itself was stopped), absent, or the host gone: the host (HostTimeoutError,
// indeterminate). Fed by hand here; test/run/stuck-session.test.ts drives real hosts.
import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { HostTimeoutError, SessionHungError } from '../../harness/core/errors.js';
import { nextAnswer, timedOutError, type Answering } from '../../harness/session/liveness.js';
import { HOST_ALIVE_GAP_MS, type HostMessage } from '../../harness/session/protocol.js';

/** A stand-in for a host handle: its messages and exit are emitted by the test. */
function host(): Answering & {
  emit(ev: 'msg', m: HostMessage, t: number): boolean;
  emit(ev: 'exit', x: unknown): boolean;
  exited: unknown;
} {
  const exited: unknown = null;
  return Object.assign(new EventEmitter(), { exited }) as never;
}

describe('nextAnswer', () => {
  it('the first tick sent at or after the bound: on time, alive; after a gap above the limit, stopped', async () => {
    const h = host();
    const onTime = nextAnswer(h, 10_000, 1000);
    h.emit('msg', { ev: 'hb', step: 1, nonce: 'n', full: false }, 0); // not a tick
    h.emit('msg', { ev: 'alive', at: 990, gapMs: 200 }, 0); // sent before the bound: read late, proves nothing
    h.emit('msg', { ev: 'alive', at: 1150, gapMs: 160 }, 0);
    expect(await onTime).toEqual({ kind: 'alive', afterMs: 150, gapMs: 160 });
    const late = nextAnswer(h, 10_000, 2000);
    h.emit('msg', { ev: 'alive', at: 9000, gapMs: HOST_ALIVE_GAP_MS + 1 }, 0);
    expect(await late).toEqual({ kind: 'stopped', afterMs: 7000, gapMs: HOST_ALIVE_GAP_MS + 1 });
  });

  it('nothing sent after the bound within the wait, or the host gone: silent', async () => {
    const quiet = host();
    const waiting = nextAnswer(quiet, 20, 1000);
    quiet.emit('msg', { ev: 'alive', at: 999, gapMs: 200 }, 0);
    expect(await waiting).toEqual({ kind: 'silent' });
    const h = host();
    const gone = nextAnswer(h, 10_000, 0);
    h.emit('exit', {});
    expect(await gone).toEqual({ kind: 'silent' });
  });
});

describe('timedOutError', () => {
  it("the host answered on time: the session's (session-hung or checkpoint-stuck), naming the wait, bound and answer", () => {
    const err = timedOutError(42, 'full heartbeat', 4000, { kind: 'alive', afterMs: 83, gapMs: 200 }, 10_000);
    expect(err).toBeInstanceOf(SessionHungError);
    expect([(err as SessionHungError).code, err.message]).toEqual([
      'session-hung',
      'the session of host 42 sent no full heartbeat within 4000 ms, while its host answered (83 ms after the bound, its alive ticks 200 ms apart)',
    ]);
    const stuck = timedOutError(
      42,
      'commit of checkpoint 3',
      1500,
      { kind: 'alive', afterMs: 5, gapMs: 199 },
      1,
      'checkpoint-stuck',
    );
    expect(stuck).toBeInstanceOf(SessionHungError);
    expect((stuck as SessionHungError).code).toBe('checkpoint-stuck');
  });

  it('negative control: a host back from a stop, or silent, is the host hung (HostTimeoutError), never the session', () => {
    const back = timedOutError(42, 'restore-end', 4000, { kind: 'stopped', afterMs: 900, gapMs: 5000 }, 10_000);
    expect(back).toBeInstanceOf(HostTimeoutError);
    expect(back.message).toBe(
      'host 42 sent no restore-end within 4000 ms, and was itself stopped or starved (its next alive tick came 5000 ms after the one before)',
    );
    const silent = timedOutError(42, 'restore-end', 4000, { kind: 'silent' }, 10_000, 'checkpoint-stuck');
    expect(silent).toBeInstanceOf(HostTimeoutError);
    expect(silent.message).toBe(
      'host 42 sent no restore-end within 4000 ms, nor any alive tick in the 10000 ms after (hung or stopped)',
    );
  });
});
