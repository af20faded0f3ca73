// Telling a stuck session from a stuck host: when a bounded wait on a session runs out, the host's first `alive` sent
// after the bound (its own timer's tick, whatever its target does) says whether the host itself is running. Alive, on
// time: the session is stuck (SessionHungError, a claim about the system under test); silent, or back from a stop: the
// host is (HostTimeoutError, indeterminate). Ticks sent before the bound do not count: a runner that was itself
// stalled reads them late, with the session's messages that came before them (one pipe, in order).
import type { EventEmitter } from 'node:events';
import { HostTimeoutError, SessionHungError } from '../core/errors.js';
import { HOST_ALIVE_GAP_MS, type HostMessage } from './protocol.js';

/** What a host did in the wait for its next sign of life. */
export type HostAnswer =
  /** It answered `afterMs` after the bound, its tick on time (`gapMs` after the one before): it is running. */
  | { kind: 'alive'; afterMs: number; gapMs: number }
  /** It answered, but its tick came `gapMs` after the one before: it was itself stopped or starved until then. */
  | { kind: 'stopped'; afterMs: number; gapMs: number }
  /** Nothing within the wait, or it exited. */
  | { kind: 'silent' };

/** What the probe needs of a host handle. */
export type Answering = Pick<EventEmitter<{ msg: [HostMessage, number]; exit: [unknown] }>, 'on' | 'off'> & {
  readonly exited: unknown;
};

/** The host's first `alive` sent at or after `since` (monotonicMs), waited for at most `answerMs` from now. */
export function nextAnswer(host: Answering, answerMs: number, since: number): Promise<HostAnswer> {
  return new Promise((resolve) => {
    const finish = (a: HostAnswer): void => {
      clearTimeout(timer);
      host.off('msg', onMsg);
      host.off('exit', onExit);
      resolve(a);
    };
    const onMsg = (msg: HostMessage): void => {
      if (msg.ev !== 'alive' || msg.at < since) return;
      const afterMs = Math.round(msg.at - since);
      finish({ kind: msg.gapMs > HOST_ALIVE_GAP_MS ? 'stopped' : 'alive', afterMs, gapMs: msg.gapMs });
    };
    const onExit = (): void => finish({ kind: 'silent' });
    const timer = setTimeout(() => finish({ kind: 'silent' }), answerMs);
    host.on('msg', onMsg);
    host.on('exit', onExit);
    if (host.exited) onExit();
  });
}

/**
 * The error of a wait for `what` from the session of host `pid` that ran out after `timeoutMs`, given how the host
 * answered in the `answerMs` after: the session's (SessionHungError) only when the host was demonstrably running.
 */
export function timedOutError(
  pid: number,
  what: string,
  timeoutMs: number,
  answer: HostAnswer,
  answerMs: number,
  code: 'session-hung' | 'checkpoint-stuck' = 'session-hung',
): SessionHungError | HostTimeoutError {
  const waited = `sent no ${what} within ${timeoutMs} ms`;
  switch (answer.kind) {
    case 'alive':
      return new SessionHungError(
        `the session of host ${pid} ${waited}, while its host answered (${answer.afterMs} ms after the bound, its alive ticks ${answer.gapMs} ms apart)`,
        code,
      );
    case 'stopped':
      return new HostTimeoutError(
        `host ${pid} ${waited}, and was itself stopped or starved (its next alive tick came ${answer.gapMs} ms after the one before)`,
      );
    case 'silent':
      return new HostTimeoutError(
        `host ${pid} ${waited}, nor any alive tick in the ${answerMs} ms after (hung or stopped)`,
      );
  }
}
