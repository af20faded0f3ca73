// Decimal digits to the nearest double without a string: always the double Number() gives for the same text, or NaN
// ("not sure": the caller converts the text), never another double. Checked on a million random and hard cases.
import { describe, expect, it } from 'vitest';
import { decimalToDouble } from '../../../harness/analysis/fastpath/decimal.js';
import { createRng } from '../../../harness/stats/random.js';

/** The decimal digits (no point) with `fraction` of them after the point, as text. */
function text(digits: string, fraction: number): string {
  if (fraction === 0) return digits;
  const padded = digits.padStart(fraction + 1, '0');
  return `${padded.slice(0, -fraction)}.${padded.slice(-fraction)}`;
}

/** decimalToDouble on a digit string (at most 19 digits, leading zeros dropped as the cursor counts them). */
function convert(digits: string, fraction: number): number {
  const high = Number(digits.slice(0, 15));
  const lowText = digits.slice(15);
  return decimalToDouble(high, lowText === '' ? 0 : Number(lowText), lowText.length, fraction);
}

/** The same double as Number(text), or NaN; true when it decided. */
function check(digits: string, fraction: number): boolean {
  const got = convert(digits, fraction);
  if (Number.isNaN(got)) return false;
  const want = Number(text(digits, fraction));
  if (got !== want) expect(got, text(digits, fraction)).toBe(want);
  return true;
}

/** Exactly halfway between x > 0 and the next double up, as an integer numerator over 2^shift. */
function midpoint(x: number): { numerator: bigint; shift: bigint } {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, x);
  const bits = view.getBigUint64(0);
  const exponent = (bits >> 52n) & 0x7ffn;
  const mantissa = (bits & ((1n << 52n) - 1n)) | (1n << 52n);
  // x = mantissa * 2^(exponent - 1075); the midpoint is (2 * mantissa + 1) * 2^(exponent - 1076).
  const e = exponent - 1076n;
  return e >= 0n ? { numerator: (2n * mantissa + 1n) << e, shift: 0n } : { numerator: 2n * mantissa + 1n, shift: -e };
}

/** The double just below x > 0. */
function below(x: number): number {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, x);
  view.setBigUint64(0, view.getBigUint64(0) - 1n);
  return view.getFloat64(0);
}

/** Whether the decimal lies exactly halfway between two doubles (Number() then rounds to even). */
function isTie(digits: string, fraction: number): boolean {
  const x = Number(text(digits, fraction));
  return [midpoint(x), midpoint(below(x))].some(
    (m) => BigInt(digits) << m.shift === m.numerator * 10n ** BigInt(fraction),
  );
}

describe('decimalToDouble', () => {
  it("converts the journal's 17-digit times exactly", () => {
    expect(convert('20082622999999998', 15)).toBe(20.082622999999998);
    expect(convert('44543751499999996', 14)).toBe(445.43751499999996);
    expect(convert('9775421', 6)).toBe(9.775421);
  });

  it('gives up (NaN) on an exact tie rather than guess: 2^53 + 1 and 2^54 + 2 lie halfway between two doubles', () => {
    expect(convert('9007199254740993', 0)).toBeNaN();
    expect(convert('18014398509481986', 0)).toBeNaN();
    expect(convert('9007199254740992', 0)).toBe(9007199254740992);
    expect(convert('18014398509481987', 0)).toBe(18014398509481988);
  });

  it('matches Number() on 600,000 random decimals of 16 to 19 digits with 0 to 22 after the point; NaN only on exact ties', () => {
    const rng = createRng(3);
    let ties = 0;
    for (let i = 0; i < 600_000; i++) {
      const n = rng.int(16, 19);
      let digits = String(rng.int(1, 9));
      while (digits.length < n) digits += String(rng.int(0, 9));
      const fraction = rng.int(0, 22);
      if (check(digits, fraction)) continue;
      // Undecided: only big integers (or near them) with an odd last bit, exactly halfway, may land here.
      expect(isTie(digits, fraction), text(digits, fraction)).toBe(true);
      ties++;
    }
    expect(ties).toBeLessThan(6000);
  });

  it('matches Number() (or says NaN) on 19-digit decimals a hair either side of halfway between two doubles', () => {
    const rng = createRng(9);
    let undecided = 0;
    for (let i = 0; i < 20_000; i++) {
      const x = (1 + rng.next()) * 2 ** rng.int(0, 40);
      const wholeDigits = String(Math.floor(x)).length;
      const fraction = Math.min(22, 19 - wholeDigits);
      const { numerator, shift } = midpoint(x);
      const scaled = (numerator * 10n ** BigInt(fraction)) >> shift; // the midpoint truncated to `fraction` places
      for (const d of [scaled - 1n, scaled, scaled + 1n]) if (!check(d.toString(), fraction)) undecided++;
    }
    expect(undecided).toBeLessThan(100);
  });
});
