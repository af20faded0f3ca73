// Rounding a number the harness records (journal lines, manifests' meta, environment facts, debug logs): the one rule,
// so two writers of one figure never keep different precisions. Numbers shown to people: report/text/format.ts.

/** `x` to `decimals` places (Math.round's half-up on the scaled value; -0 comes out as 0). */
export function roundTo(x: number, decimals: number): number {
  const scale = 10 ** decimals;
  return Math.round(x * scale) / scale + 0;
}

/** A time or duration in ms as the journal records it: to the microsecond. */
export function roundMs(ms: number): number {
  return roundTo(ms, 3);
}
