// Decimal digits to the nearest double without making a string, for the journal's fast path. Times in the journal
// often print with 17 significant digits (20.082622999999998), too many for the one-division shortcut; converting their
// text instead costs several times more than all the rest of reading the number.

/** 10^k for k <= 22, parsed from literals: exact. */
const POW10 = Array.from({ length: 23 }, (_, k) => Number(`1e${k}`));
const TWO_26 = 2 ** 26;
const TWO_53 = 2 ** 53;
/** Veltkamp's constant for splitting a double into two 26-bit halves. */
const SPLITTER = 2 ** 27 + 1;

/**
 * The double nearest to D / 10^fraction, where D = high * 10^lowDigits + low is the number's digits without the point
 * (high: its first 15 digits at most, low: up to 4 more), or NaN when this method cannot be sure (then convert the text).
 * fraction must be at most 22.
 */
export function decimalToDouble(high: number, low: number, lowDigits: number, fraction: number): number {
  // D = a * 2^26 + b with a and b exact integers (high split into 26-bit halves first).
  const highTop = Math.floor(high / TWO_26);
  const a = highTop * POW10[lowDigits]!;
  const b = (high - highTop * TWO_26) * POW10[lowDigits]! + low;
  const scale = POW10[fraction]!;
  const d = a * TWO_26 + b;
  // Below 2^53 that sum is D itself, and one correctly rounded division gives the answer (Clinger's fast path).
  if (d < TWO_53) return d / scale;
  return nearestQuotient(a * TWO_26, b, scale);
}

/**
 * The double nearest to (x + y) / scale for exact integers x, y >= 0 with x + y < 2^64, or NaN near a tie. The quotient
 * is carried as an unevaluated sum q1 + q2 good to about 2^-103 relative (error-free sums and Dekker's exact product);
 * its nearest double is certain unless the quotient lies within 2^-96 (relative) of halfway between two doubles.
 */
function nearestQuotient(x: number, y: number, scale: number): number {
  // D = dh + dl exactly (Knuth's two-sum).
  const dh = x + y;
  const yv = dh - x;
  const dl = x - (dh - yv) + (y - yv);
  // q1 to double precision, then the remainder D - q1 * scale exactly but for the last two roundings, and q2 from it.
  const q1 = dh / scale;
  const p = q1 * scale;
  const r = dh - p - productError(q1, scale, p) + dl;
  const q2 = r / scale;
  // q1 + q2 = nearest + t exactly (Dekker's fast two-sum, |q1| >= |q2|).
  const nearest = q1 + q2;
  const t = q2 - (nearest - q1);
  // Rounding is monotone: if the quotient moved by the worst error either way still rounds to `nearest`, so does it.
  const hair = nearest * 2 ** -96;
  return nearest + (t + hair) === nearest && nearest + (t - hair) === nearest ? nearest : Number.NaN;
}

/** u * v - p exactly, where p = fl(u * v) (Dekker's product with Veltkamp's split; JS has no fused multiply-add). */
function productError(u: number, v: number, p: number): number {
  const uc = SPLITTER * u;
  const uh = uc - (uc - u);
  const ul = u - uh;
  const vc = SPLITTER * v;
  const vh = vc - (vc - v);
  const vl = v - vh;
  return uh * vh - p + uh * vl + ul * vh + ul * vl;
}
