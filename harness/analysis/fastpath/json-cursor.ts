// Reading compact JSON (as JSON.stringify writes it) straight from bytes, for the journal's fast path. It knows only a
// strict subset of JSON, so every text it accepts is valid JSON and every number it returns is the one JSON.parse
// would give; on anything else it fails, and the caller hands the text to JSON.parse instead.
import { decimalToDouble } from './decimal.js';
import { literal, type KnownString, type Literal } from './json-literal.js';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const MINUS = 0x2d;
const PLUS = 0x2b;
const DOT = 0x2e;
const ZERO = 0x30;
const NINE = 0x39;
const LOWER_E = 0x65;
const UPPER_E = 0x45;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const SPACE = 0x20;

const NULL = literal('null');
const TRUE = literal('true');
const FALSE = literal('false');

/** Numbers with more significant digits, more after the point, or an exponent are converted from their text. */
const MAX_DIGITS = 19;
const MAX_FRACTION = 22;

/**
 * A read position in one JSON text. Failure is sticky: after the first mismatch every read is a no-op returning a
 * placeholder (NaN for numbers), so a caller reads a whole shape and checks `done()` once at the end.
 */
export class JsonCursor {
  private bytes: Buffer = Buffer.alloc(0);
  private words = new DataView(this.bytes.buffer);
  private pos = 0;
  private end = 0;
  private ok = true;
  /** The number scanned last: where its digits start and end, where its point is (-1: none), whether it has an exponent. */
  private numberStart = 0;
  private digitsStart = 0;
  private digitsEnd = 0;
  private point = -1;
  private exponent = false;

  /** Start reading bytes[start, end). */
  reset(bytes: Buffer, start: number, end: number): void {
    if (bytes !== this.bytes) {
      this.bytes = bytes;
      this.words = new DataView(bytes.buffer, bytes.byteOffset, bytes.length);
    }
    this.pos = start;
    this.end = end;
    this.ok = true;
  }

  /** True when everything so far matched and the whole text was read. */
  done(): boolean {
    return this.ok && this.pos === this.end;
  }

  private fail(): void {
    this.ok = false;
  }

  /** True once a read has failed; a call, so TypeScript does not keep an earlier `this.ok` check's narrowing. */
  private failed(): boolean {
    return !this.ok;
  }

  /** Match exact bytes (punctuation, a key with its quotes and colon). */
  literal(lit: Literal): void {
    if (this.ok && !this.skipIfAt(lit)) this.fail();
  }

  /** Step over `lit` if the text continues with it (an optional member), saying whether it did; nothing happens otherwise. */
  optional(lit: Literal): boolean {
    return this.ok && this.skipIfAt(lit);
  }

  /** A string that must be one of `known` (not empty): its value, without decoding (the first one after a failure). */
  oneOf<T extends string>(known: readonly KnownString<T>[]): T {
    if (this.ok) for (const k of known) if (this.skipIfAt(k.json)) return k.value;
    this.fail();
    return known[0]!.value;
  }

  /** Step over `lit` if the text continues with it. */
  private skipIfAt(lit: Literal): boolean {
    const pos = this.pos;
    const n = lit.bytes.length;
    if (pos + n > this.end) return false;
    if (n < 4) {
      for (let k = 0; k < n; k++) if (this.bytes[pos + k] !== lit.bytes[k]) return false;
    } else {
      const { offsets, words } = lit;
      for (let k = 0; k < offsets.length; k++)
        if (this.words.getInt32(pos + offsets[k]!, true) !== words[k]) return false;
    }
    this.pos = pos + n;
    return true;
  }

  /** A number: its exact value (NaN after a failure). */
  number(): number {
    const start = this.pos;
    this.scanNumber();
    return this.ok ? this.valueOf(start) : Number.NaN;
  }

  /** A number or null (null as NaN: JSON has no NaN, so the two cannot be confused). */
  numberOrNull(): number {
    if (this.ok && this.bytes[this.pos] === NULL.bytes[0]) {
      this.literal(NULL);
      return Number.NaN;
    }
    return this.number();
  }

  /** Check a number without converting it. */
  skipNumber(): void {
    this.scanNumber();
  }

  /**
   * Check a number without converting it, and say whether its text alone shows it to be a plain positive number below
   * 10^maxIntDigits: no sign, no exponent, a first digit 1-9, at most maxIntDigits digits before the point, and none
   * after it unless `fraction`. When false (and nothing failed), scannedValue() gives its value to check instead.
   */
  skipPlainNumber(maxIntDigits: number, fraction: boolean): boolean {
    this.scanNumber();
    if (!this.ok) return true;
    const first = this.bytes[this.numberStart];
    const intEnd = this.point < 0 ? this.digitsEnd : this.point;
    return (
      first !== MINUS &&
      first !== ZERO &&
      !this.exponent &&
      intEnd - this.digitsStart <= maxIntDigits &&
      (fraction || this.point < 0)
    );
  }

  /** The value of the number scanned last, right after the scan (NaN after a failure). */
  scannedValue(): number {
    return this.ok ? this.valueOf(this.numberStart) : Number.NaN;
  }

  /** Check a string without decoding it; one with escapes fails (JSON.parse reads those). */
  skipString(): void {
    if (!this.ok) return;
    const { bytes, end } = this;
    if (bytes[this.pos] !== QUOTE) return this.fail();
    for (let i = this.pos + 1; i < end; i++) {
      const b = bytes[i]!;
      if (b === QUOTE) {
        this.pos = i + 1;
        return;
      }
      // Control characters are invalid in JSON strings; escapes are valid but left to JSON.parse. Bytes >= 0x80 (UTF-8)
      // are fine: decoding never turns them into a quote or a control character.
      if (b === BACKSLASH || b < SPACE) return this.fail();
    }
    this.fail();
  }

  /** A string without escapes, decoded (one with escapes fails, as in skipString). */
  string(): string {
    const start = this.pos;
    this.skipString();
    return this.ok ? this.bytes.toString('utf8', start + 1, this.pos - 1) : '';
  }

  /**
   * Check a flat record ({} or string keys with string or finite number values: a checkpoint's meta) without building
   * it. A number too long to be sure of (an exponent, 300 digits) is converted to see that it is finite.
   */
  skipFlatRecord(): void {
    if (!this.ok) return;
    if (this.bytes[this.pos] !== OPEN_BRACE) return this.fail();
    this.pos++;
    if (this.bytes[this.pos] === CLOSE_BRACE) {
      this.pos++;
      return;
    }
    for (;;) {
      this.skipString();
      if (this.bytes[this.pos] !== COLON) return this.fail();
      this.pos++;
      if (this.bytes[this.pos] === QUOTE) this.skipString();
      else this.skipFiniteNumber();
      if (this.failed()) return;
      const next = this.bytes[this.pos];
      this.pos++;
      if (next === CLOSE_BRACE) return;
      if (next !== COMMA) return this.fail();
    }
  }

  /** Check a number that is finite (1e999 is valid JSON but parses as Infinity). */
  private skipFiniteNumber(): void {
    const start = this.pos;
    this.scanNumber();
    if (this.ok && (this.exponent || this.digitsEnd - this.digitsStart > 300))
      this.require(Number.isFinite(this.valueOf(start)));
  }

  /** true or false (false after a failure). */
  boolean(): boolean {
    if (!this.ok) return false;
    if (this.skipIfAt(TRUE)) return true;
    if (!this.skipIfAt(FALSE)) this.fail();
    return false;
  }

  /** Fail unless `condition` holds: a rule about a value just read (the caller's, e.g. a cycle id is >= 1). */
  require(condition: boolean): void {
    if (!condition) this.fail();
  }

  /** Check the JSON number grammar -?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?, noting where its digits are. */
  private scanNumber(): void {
    if (!this.ok) return;
    const bytes = this.bytes;
    let i = this.pos;
    this.numberStart = i;
    if (bytes[i] === MINUS) i++;
    this.digitsStart = i;
    const first = bytes[i];
    if (first === ZERO) i++;
    else if (first !== undefined && first > ZERO && first <= NINE) i = this.skipDigits(i);
    else return this.fail();
    this.point = -1;
    if (bytes[i] === DOT) {
      this.point = i;
      i = this.skipDigits(i + 1);
      if (i === this.point + 1) return this.fail();
    }
    this.digitsEnd = i;
    this.exponent = bytes[i] === LOWER_E || bytes[i] === UPPER_E;
    if (this.exponent) {
      i++;
      if (bytes[i] === PLUS || bytes[i] === MINUS) i++;
      const from = i;
      i = this.skipDigits(i);
      if (i === from) return this.fail();
    }
    this.pos = i;
  }

  /** The index of the first byte from `i` on that is not a digit. */
  private skipDigits(i: number): number {
    const { bytes, end } = this;
    while (i < end && bytes[i]! >= ZERO && bytes[i]! <= NINE) i++;
    return i;
  }

  /** The value of the number just scanned (its text is bytes[start, pos)): from its digits when exact, else from its text. */
  private valueOf(start: number): number {
    const { bytes, point, digitsEnd } = this;
    const fraction = point < 0 ? 0 : digitsEnd - point - 1;
    const count = digitsEnd - this.digitsStart - (point < 0 ? 0 : 1);
    let magnitude = Number.NaN;
    if (!this.exponent && count <= MAX_DIGITS && fraction <= MAX_FRACTION) {
      // The first 15 digits fit a double exactly; up to 4 more go into a second integer.
      let high = 0;
      let low = 0;
      let seen = 0;
      for (let i = this.digitsStart; i < digitsEnd; i++) {
        if (i === point) continue;
        if (seen++ < 15) high = high * 10 + (bytes[i]! - ZERO);
        else low = low * 10 + (bytes[i]! - ZERO);
      }
      magnitude = decimalToDouble(high, low, Math.max(0, count - 15), fraction);
    }
    if (Number.isNaN(magnitude)) return Number(bytes.toString('latin1', start, this.pos));
    return bytes[start] === MINUS ? -magnitude : magnitude;
  }
}
