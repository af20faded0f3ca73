// Every fault kind the nemesis delivers, by the name a scenario's `faults:` lists it under (scenario.ts FAULT_KINDS).
// A new kind: its file in nemesis/ exporting one Fault, its name in FAULT_KINDS, and one line here.
import type { FaultKind, Scenario } from '../scenario/scenario.js';
import type { Fault } from './fault.js';
import { checkpointStorm } from './checkpoint-storm.js';
import { freeze } from './freeze.js';
import { hostCrash } from './host-crash.js';
import { memoryPressure } from './memory-pressure.js';
import { powerLoss } from './power-loss.js';
import { sigkill } from './sigkill.js';
import { eio, enospc } from './write-fault.js';

export const FAULTS: Readonly<Record<FaultKind, Fault>> = {
  sigkill,
  'power-loss': powerLoss,
  enospc,
  eio,
  freeze,
  'host-crash': hostCrash,
  'checkpoint-storm': checkpointStorm,
  'memory-pressure': memoryPressure,
};

/** Whether the scenario's store must live on the lazy file system (some listed fault is delivered through it). */
export function needsLazyfs(scenario: Pick<Scenario, 'faults'>): boolean {
  return scenario.faults.some((f) => FAULTS[f.kind].needsLazyfs);
}
