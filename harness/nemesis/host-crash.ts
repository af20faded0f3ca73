// The host-crash fault: the machine dies. Every process of the session is SIGKILLed at one instant, at the planned
// point: the session host's group, its kill list and the warm standbys (a real crash takes them too), so the restore
// comes from a cold host. The store's file system keeps what reached it (for a lost page cache: power-loss).
import { journalFault, type Fault } from './fault.js';
import { strike } from './strike.js';

/** TEST-ONLY: a host crash that spares the warm standbys (the negative control of its cold restore). */
export const HOST_CRASH_SPARES_STANDBYS = 'SOAK_TEST_HOST_CRASH_SPARES_STANDBYS';

export const hostCrash: Fault = {
  kind: 'host-crash',
  needsLazyfs: false,
  inject(ctx, host) {
    const standby = process.env[HOST_CRASH_SPARES_STANDBYS] === '1' ? undefined : ctx.standby;
    return strike(ctx, host, {
      atPoint: (h) => {
        journalFault(ctx, h);
        return Promise.resolve(null);
      },
      send(h) {
        const t = h.kill(); // the session's group and kill list
        standby?.killAll(); // in the same tick: nothing of the machine outlives it
        return t;
      },
      async afterReap() {
        await standby?.discard(ctx.timeouts.hostMs); // reaped: the restore starts a cold host
        return {};
      },
    });
  },
};
