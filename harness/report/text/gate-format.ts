// Formatting a gate's measured value and interval in the gate's own unit (a "%" proportion as a percentage, "ms" as a
// duration, anything else as a plain number), as GateResult.unit declares it.
import type { GateResult } from '../../gates/types.js';
import { fmtMs, fmtNum, fmtPct, fmtPctInterval } from './format.js';

/** The measured value in the gate's unit; "n/a" when nothing was measured. */
export function fmtGateValue(gate: Pick<GateResult, 'unit' | 'value'>): string {
  if (gate.unit === '%') return fmtPct(gate.value);
  return gate.unit === 'ms' ? fmtMs(gate.value) : fmtNum(gate.value);
}

/** The interval in the gate's unit ("88.6%–100%", "198 ms–230 ms"); "–" when the metric has none. */
export function fmtGateInterval(gate: Pick<GateResult, 'unit' | 'interval'>): string {
  if (gate.interval === null) return '–';
  if (gate.unit === '%') return fmtPctInterval(gate.interval);
  const f = gate.unit === 'ms' ? fmtMs : (v: number) => fmtNum(v);
  return `${f(gate.interval[0])}–${f(gate.interval[1])}`;
}
