// The ENOSPC and EIO faults (issue 17), one mechanism with two errnos: the seeded n-th next write under the store fails
// with the errno (lazyfs). The cycle waits for the host to fail on it instead of killing it first (a kill that lands
// before the failing write would make the cycle a plain SIGKILL counted under the write fault), then restores and
// judges as usual; a host that never reached the write is killed as planned. Either way the store must still verify.
import { sleep } from '../core/clock.js';
import type { IndeterminateCause, KillPhase, Violation } from '../journal/events.js';
import type { HostHandle } from '../session/host-handle.js';
import type { Store } from '../store/store.js';
import { verifyStore } from '../store/check/verify.js';
import { causeOf } from '../session/infra-cause.js';
import { gaveUp, journalFault, lazyfsFor, type Fault } from './fault.js';
import type { InjectedErrno } from './lazyfs.js';
import { planWriteFailure } from './plan.js';
import { down, strike } from './strike.js';

/** The fault that fails a write under the store with `errno`. */
function writeError(kind: 'enospc' | 'eio', errno: InjectedErrno): Fault {
  return {
    kind,
    needsLazyfs: true,
    async inject(ctx, host) {
      const lazyfs = lazyfsFor(ctx, kind);
      journalFault(ctx, host);
      lazyfs.failWrite(planWriteFailure(ctx.scenario, ctx.cycle), errno);
      const after = await awaitWriteFailure(host, ctx.timeouts.hostMs, ctx.runDir);
      if (after.kind === 'gone') return gaveUp(host, after.cause);
      const check = (): Promise<{ damage: Violation[] }> =>
        Promise.resolve({ damage: damageAfterWriteFault(ctx.store()) });
      // not reached (or swallowed): killed as planned; no early read of a store the check reads after
      if (after.kind === 'running') return strike(ctx, host, { readsStoreEarly: false, afterReap: check });
      // it failed on the error: no kill; down since its exit was seen, and the previous checkpoint must restore
      const observedPhase: KillPhase = host.inFlightSeq !== null ? 'checkpoint' : 'work';
      const at = { tKill: await host.died, nonce: host.nonce ?? '', observedPhase, infraCause: after.cause };
      return down(ctx, host, at, check);
    },
  };
}

/** ENOSPC on a write under the store: the disk is full. */
export const enospc = writeError('enospc', 'ENOSPC');
/** EIO on a write under the store: the disk failed the write. */
export const eio = writeError('eio', 'EIO');

/** What became of a host after an injected write error. */
export type WriteFaultResult =
  /** The host failed on it with the errno: the cycle skips its kill and restores. */
  | { kind: 'failed'; cause: IndeterminateCause }
  /** The host ended for another reason the harness owns (hung, died with nothing to say, lock conflict). */
  | { kind: 'gone'; cause: IndeterminateCause }
  /** Still running after `waitMs` (the error was not reached, or swallowed), or failed on its own: kill as planned. */
  | { kind: 'running' };

/** Wait up to `waitMs` for `host` to end after an injected write error, and say how it ended. */
export async function awaitWriteFailure(host: HostHandle, waitMs: number, runDir: string): Promise<WriteFaultResult> {
  const died = await Promise.race([host.died.then(() => true), sleep(waitMs).then(() => false)]);
  if (!died) return { kind: 'running' };
  await host.reap(waitMs); // its group too (the target's processes); then its output is read to the end, error included
  const cause = causeOf(new Error(`host ${host.pid} exited after an injected write error`), host, runDir);
  if (cause === null) return { kind: 'running' };
  return cause.code === 'enospc' || cause.code === 'eio' ? { kind: 'failed', cause } : { kind: 'gone', cause };
}

/**
 * After an injected write error: the store must still verify (nothing committed damaged); else a `store-damaged`
 * violation (a writer that carried on past the failed write and committed over the hole).
 */
export function damageAfterWriteFault(store: Store): Violation[] {
  store.refresh();
  const problems = verifyStore(store).problems;
  if (problems.length === 0) return [];
  const first = problems[0]!;
  const what = `checkpoint ${first.seq} ${first.part}: ${first.problem}`;
  return [
    {
      code: 'store-damaged',
      message: `after the injected write error, verify found ${problems.length} problem(s); ${what}`,
    },
  ];
}
