// The byte-level JSON reader of the journal's fast path: every number it returns is the one JSON.parse gives
// (bit for bit, -0 included), and it refuses every text JSON.parse refuses (it may refuse more: those go to JSON.parse).
import { describe, expect, it } from 'vitest';
import { JsonCursor } from '../../../harness/analysis/fastpath/json-cursor.js';
import { knownStrings, literal } from '../../../harness/analysis/fastpath/json-literal.js';
import { createRng } from '../../../harness/stats/random.js';

/** Read `text` with `read`, then require that the whole text was consumed; the value, or 'refused'. */
function readAll<T>(text: string, read: (c: JsonCursor) => T): T | 'refused' {
  const c = new JsonCursor();
  const bytes = Buffer.from(text, 'utf8');
  c.reset(bytes, 0, bytes.length);
  const value = read(c);
  return c.done() ? value : 'refused';
}
const number = (text: string): number | 'refused' => readAll(text, (c) => c.number());

/** JSON.stringify of random doubles: all bit patterns (finite), and the shapes the journal holds (ms with 17 digits). */
function randomNumbers(n: number): number[] {
  const rng = createRng(42);
  const view = new DataView(new ArrayBuffer(8));
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    view.setUint32(0, Math.floor(rng.next() * 2 ** 32));
    view.setUint32(4, Math.floor(rng.next() * 2 ** 32));
    const bits = view.getFloat64(0);
    if (Number.isFinite(bits)) out.push(bits);
    out.push(rng.next() * 10 ** rng.int(0, 8), Math.round(rng.next() * 1e9) / 1000, rng.int(0, 2 ** 31), -rng.next());
  }
  return out;
}

describe('JsonCursor.number', () => {
  it('gives exactly what JSON.parse gives, on edge cases', () => {
    const texts = [
      '0',
      '-0',
      '1',
      '-1',
      '10',
      '0.5',
      '-0.5',
      '1.25',
      '123.456',
      '1e5',
      '1E-3',
      '2.5e+10',
      '-2.5E-10',
      '0.1',
      '0.30000000000000004',
      '9007199254740991',
      '9007199254740992',
      '9007199254740993',
      '18014398509481985',
      '123456789012345678901234567890',
      '445.43751499999996',
      '20.082622999999998',
      '6.845262222923338',
      '0.0000000000000000000001',
      '0.00000000000000000000001234',
      '1.7976931348623157e308',
      '1e309',
      '5e-324',
      '2e-324',
      '4.9406564584124654e-324',
      '2.2250738585072011e-308',
      '12345678901234567',
      '1234567890123456.7',
      '0.12345678901234567890123',
    ];
    for (const t of texts) expect(Object.is(number(t), JSON.parse(t)), t).toBe(true);
  });

  it('gives exactly what JSON.parse gives, on 50,000 random numbers as JSON.stringify writes them', () => {
    for (const x of randomNumbers(10_000)) {
      const t = JSON.stringify(x);
      expect(Object.is(number(t), x), t).toBe(true);
    }
  });

  it('refuses what is not a JSON number (negative control: JSON.parse refuses each too)', () => {
    const bad = [
      '',
      '-',
      '+1',
      '01',
      '-01',
      '00',
      '1.',
      '.5',
      '-.5',
      '1e',
      '1e+',
      '1E-',
      '--1',
      '1.5.2',
      'NaN',
      'Infinity',
      '-Infinity',
      '0x10',
      '1_000',
      '١',
    ];
    for (const t of bad) {
      expect(() => {
        JSON.parse(t);
      }, t).toThrow();
      expect(number(t), t).toBe('refused');
    }
  });

  it('refuses whitespace JSON.parse would allow: such a line is simply left to JSON.parse', () => {
    for (const t of [' 1', '1 ', '\t1']) {
      expect(JSON.parse(t), t).toBe(1);
      expect(number(t), t).toBe('refused');
    }
  });

  it('numberOrNull reads null as NaN; skipNumber checks without converting', () => {
    expect(readAll('null', (c) => c.numberOrNull())).toBeNaN();
    expect(readAll('12.5', (c) => c.numberOrNull())).toBe(12.5);
    expect(readAll('nul', (c) => c.numberOrNull())).toBe('refused');
    expect(readAll('1e3', (c) => c.skipNumber())).toBeUndefined();
    expect(readAll('1e', (c) => c.skipNumber())).toBe('refused');
  });
});

describe('JsonCursor strings, objects and literals', () => {
  it('skipString takes plain strings (UTF-8 too) and refuses control characters, escapes (left to JSON.parse) and unterminated ones', () => {
    for (const ok of ['""', '"0123456789abcdef"', '"déjà vu ✓"'])
      expect(
        readAll(ok, (c) => c.skipString()),
        ok,
      ).toBeUndefined();
    for (const bad of ['"a\u0000b"', '"tab\there"', '"a\\"b"', '"a\\u0041"', '"open', 'bare', "'single'"])
      expect(
        readAll(bad, (c) => c.skipString()),
        bad,
      ).toBe('refused');
  });

  it('skipFlatRecord takes {} and flat records of strings and finite numbers, refuses the rest', () => {
    for (const ok of ['{}', '{"a":1}', '{"accelerator":"tcg","guestRamMiB":256,"w":-1.5e3,"big":1e308}']) {
      expect(
        readAll(ok, (c) => c.skipFlatRecord()),
        ok,
      ).toBeUndefined();
    }
    for (const bad of [
      '{"a":{}}',
      '{"a":[1]}',
      '{"a":1,}',
      '{,}',
      '{"a"1}',
      '{"a":}',
      '{a:1}',
      '{"a":1',
      '{ }',
      '{"a": 1}',
      '[]',
      // Valid JSON, but not what a checkpoint's meta may hold (schema.ts): null, booleans, Infinity.
      '{"x":null}',
      '{"y":true}',
      '{"z":1e999}',
      '{"a":"ok","z":-1E400}',
      `{"long":1${'0'.repeat(400)}}`,
    ]) {
      expect(
        readAll(bad, (c) => c.skipFlatRecord()),
        bad,
      ).toBe('refused');
    }
  });

  it('skipPlainNumber: true only for plain positive numbers within the digits; else scannedValue() is the value', () => {
    const plain = (text: string, digits: number, fraction: boolean) =>
      readAll(text, (c) => (c.skipPlainNumber(digits, fraction) ? 'plain' : c.scannedValue()));
    expect(plain('7', 1, false)).toBe('plain');
    expect(plain('123456789', 9, false)).toBe('plain');
    expect(plain('1234.5', 4, true)).toBe('plain');
    // Not plain: the caller converts and checks the value itself.
    expect(plain('1234567890', 9, false)).toBe(1234567890);
    expect(plain('0', 9, false)).toBe(0);
    expect(plain('-3', 9, false)).toBe(-3);
    expect(plain('2.5', 9, false)).toBe(2.5);
    expect(plain('0.25', 9, true)).toBe(0.25);
    expect(plain('1e999', 308, true)).toBe(Infinity);
    expect(plain('1e2', 9, false)).toBe(100);
    expect(plain('1x', 9, false)).toBe('refused');
  });

  it('literal matches exact bytes only; oneOf gives the known string matched', () => {
    const key = literal(',"logicalBytes":');
    expect(readAll(',"logicalBytes":', (c) => c.literal(key))).toBeUndefined();
    expect(readAll(',"logicalBytez":', (c) => c.literal(key))).toBe('refused');
    expect(readAll(',"logicalBytes"', (c) => c.literal(key))).toBe('refused');
    const phases = knownStrings(['work', 'checkpoint', 'restore']);
    expect(readAll('"checkpoint"', (c) => c.oneOf(phases))).toBe('checkpoint');
    expect(readAll('"restore"', (c) => c.oneOf(phases))).toBe('restore');
    expect(readAll('"workx"', (c) => c.oneOf(phases))).toBe('refused');
    expect(readAll('"wor"', (c) => c.oneOf(phases))).toBe('refused');
  });

  it('a failure is sticky: later reads do nothing and the text is not done', () => {
    const c = new JsonCursor();
    const bytes = Buffer.from('x12');
    c.reset(bytes, 0, 3);
    c.literal(literal('y'));
    expect(c.number()).toBeNaN();
    expect(c.done()).toBe(false);
  });
});
