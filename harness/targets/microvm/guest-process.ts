// One guest process of the microvm target: QEMU, its heartbeats and hold acknowledgements, and with effects on the
// relay of its guest's effect requests (the plan on the kernel command line, the claim's incarnation this process's).
import type { Heartbeat } from '../../check/heartbeat.js';
import type { EffectsConfig } from '../../effects/plan.js';
import { EffectRelay, withIncarnation } from '../guest/effect-relay.js';
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
