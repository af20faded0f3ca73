// The power-loss fault: the session is SIGKILLed at the planned point, then the lazy file system under the store
// forgets every write and folder change not yet fsynced (docs/lazyfs.md), as a power cut does and a SIGKILL does not.
// The restore must come from the newest checkpoint whose commit was acknowledged before it.
import { acknowledged, journalFault, lazyfsFor, type Fault } from './fault.js';
import { strike } from './strike.js';

export const powerLoss: Fault = {
  kind: 'power-loss',
  needsLazyfs: true,
  inject(ctx, host) {
    const lazyfs = lazyfsFor(ctx, 'power-loss');
    return strike(ctx, host, {
      atPoint: (h) => {
        journalFault(ctx, h);
        return Promise.resolve(null);
      },
      readsStoreEarly: false, // the store is reopened after the power loss: a read before it would be thrown away
      async afterReap(h) {
        // read to EOF: every ack the host sent
        const acknowledgedSeq = acknowledged(h)?.seq ?? 0;
        // a standby's open store must not live across the power loss: a cold host restores
        await ctx.standby?.discard(ctx.timeouts.hostMs);
        await lazyfs.powerLoss();
        return { acknowledgedSeq };
      },
    });
  },
};
