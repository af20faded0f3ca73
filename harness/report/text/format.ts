// Numbers shown to people, the one home of their rounding (reports, their index, command output): ms, percentages
// (bounds rounded outward), bytes, intervals, quantile names, p-values. Numbers recorded in files: core/round.ts.

const grouped = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });

/** A duration in ms with precision that suits its size: "0.42 ms", "12.3 ms", "212 ms", "12,345 ms"; "n/a" for null. */
export function fmtMs(ms: number | null): string {
  if (ms === null || !Number.isFinite(ms)) return 'n/a';
  const abs = Math.abs(ms);
  if (abs >= 1000) return `${grouped.format(ms)} ms`;
  if (abs >= 100) return `${ms.toFixed(0)} ms`;
  if (abs >= 10) return `${ms.toFixed(1)} ms`;
  return `${ms.toFixed(2)} ms`;
}

/** A proportion as a percentage with one decimal; `round` picks the direction so interval bounds never overstate. */
export function fmtPct(p: number | null, round: 'nearest' | 'down' | 'up' = 'nearest'): string {
  if (p === null || !Number.isFinite(p)) return 'n/a';
  const scaled = p * 1000;
  const r =
    round === 'down' ? Math.floor(scaled + 1e-9) : round === 'up' ? Math.ceil(scaled - 1e-9) : Math.round(scaled);
  const text = (r / 10).toFixed(1);
  return `${text.endsWith('.0') ? text.slice(0, -2) : text}%`;
}

/** A proportion interval as "88.6%-100%", lower bound rounded down and upper bound rounded up. */
export function fmtPctInterval(interval: readonly [number, number] | null): string {
  if (interval === null) return 'n/a';
  return `${fmtPct(interval[0], 'down')}–${fmtPct(interval[1], 'up')}`;
}

/** A byte count in binary units: "512 B", "1.5 KiB", "93.2 MiB". */
export function fmtBytes(bytes: number | null): string {
  if (bytes === null || !Number.isFinite(bytes)) return 'n/a';
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes;
  let unit = 0;
  while (Math.abs(value) >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return unit === 0 ? `${value.toFixed(0)} B` : `${value.toFixed(1)} ${units[unit]}`;
}

/** A quantile's name: 0.95 -> "p95", 0.999 -> "p100" (the report's quantiles are whole percents). */
export function fmtQuantile(q: number): string {
  return `p${Math.round(q * 100)}`;
}

/** A p-value to three significant digits: "0.0312", "1.00". */
export function fmtPValue(p: number): string {
  return p.toPrecision(3);
}

/** A plain number: integers grouped, others to `digits` decimals; "n/a" for null. */
export function fmtNum(value: number | null, digits = 2): string {
  if (value === null || !Number.isFinite(value)) return 'n/a';
  return Number.isInteger(value) ? grouped.format(value) : value.toFixed(digits);
}
