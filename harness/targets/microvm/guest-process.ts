// One guest process of the microvm target: QEMU, its heartbeats and hold acknowledgements, and with effects on the
// relay of its guest's effect requests (the plan on the kernel command line, the claim's incarnation this process's).
import type { Heartbeat } from '../../check/heartbeat.js';
import type { EffectsConfig } from '../../effects/plan.js';
import { FULL_HEARTBEAT_REQUEST } from '../guest/console.js';
import { EffectRelay, withIncarnation } from '../guest/effect-relay.js';
import type { HeartbeatHub } from '../guest/heartbeats.js';
import { QemuProcess, type QemuSpec } from './qemu.js';

/**
 * Start QEMU for `spec`; with `effects`, its guest's agent emits and a new relay (a new incarnation) serves it until
 * this QEMU is gone.
 */
export function spawnGuest(
  spec: QemuSpec,
  effects: EffectsConfig | undefined,
  onHeartbeat: (hb: Heartbeat) => void,
  onHold: (step: number) => void,
): QemuProcess {
  const relay = effects && new EffectRelay(effects, (text) => qemu.writeConsole(text));
  const qemu: QemuProcess = new QemuProcess(
    { ...spec, ...(effects ? { effects: `${effects.seed}:${effects.everySteps}` } : {}) },
    (hb) => onHeartbeat(withIncarnation(hb, relay)),
    onHold,
    undefined,
    relay && ((line) => relay.handle(line)),
  );
  void qemu.exited.then(() => relay?.close());
  return qemu;
}

/** How often a restored guest is asked again for its full heartbeat until it sends one. */
const ASK_AGAIN_MS = 20;

/**
 * After a restore, while the guest is still paused: ask for the full heartbeat the checker verifies, and again every
 * ASK_AGAIN_MS once it runs, until one comes (at most `timeoutMs`). A guest restored with effect traffic on its serial
 * console did not always see the first request (1 to 4 restores in 30, TCG; never without effects): no byte written
 * around the restore reached the agent, bytes written later did.
 */
export function askFullHeartbeat(hub: HeartbeatHub, qemu: QemuProcess, timeoutMs: number): (_: unknown) => void {
  qemu.writeConsole(FULL_HEARTBEAT_REQUEST);
  let again: NodeJS.Timeout | undefined;
  let done = false;
  const stop = (): void => {
    done = true;
    clearInterval(again);
  };
  hub
    .next(
      (hb) => hb.full,
      timeoutMs,
      'a full heartbeat',
      () => qemu.exitReason(),
      () => '',
    )
    .then(stop, stop);
  return () => {
    if (!done) again ??= setInterval(() => qemu.writeConsole(FULL_HEARTBEAT_REQUEST), ASK_AGAIN_MS); // it runs now
  };
}
