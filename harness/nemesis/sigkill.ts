// The SIGKILL fault, every scenario's default: the session host's whole group and its kill list are killed at the
// planned point (in work, in a checkpoint write, in a restore); the page cache survives, as after any process kill.
import type { Fault } from './fault.js';
import { strike } from './strike.js';

export const sigkill: Fault = {
  kind: 'sigkill',
  needsLazyfs: false,
  inject: (ctx, host) => strike(ctx, host),
};
