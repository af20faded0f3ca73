// Formatting a gate's measured value and interval in the gate's own unit (rate as %, latency in ms, otherwise a number).
import type { GateResult } from '../../gates/types.js';
import { fmtMs, fmtNum, fmtPct, fmtPctInterval } from './format.js';
import { isRateGate } from '../charts/gate-chart.js';

type Unit = 'rate' | 'ms' | 'number';

function unitOf(gate: GateResult): Unit {
  if (isRateGate(gate)) return 'rate';
  if (/ms\b|Ms\b|downtime|pause|latency|duration|restore/i.test(gate.metric)) return 'ms';
  return 'number';
}

/** The measured value in the gate's unit; "n/a" when nothing was measured. */
export function fmtGateValue(gate: GateResult): string {
  const unit = unitOf(gate);
  if (unit === 'rate') return fmtPct(gate.value);
  return unit === 'ms' ? fmtMs(gate.value) : fmtNum(gate.value);
}

/** The interval in the gate's unit ("88.6%–100%", "198 ms–230 ms"); "–" when the metric has none. */
export function fmtGateInterval(gate: GateResult): string {
  if (gate.interval === null) return '–';
  const unit = unitOf(gate);
  if (unit === 'rate') return fmtPctInterval(gate.interval);
  const f = unit === 'ms' ? fmtMs : (v: number) => fmtNum(v);
  return `${f(gate.interval[0])}–${f(gate.interval[1])}`;
}
