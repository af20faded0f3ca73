// Sealed files (store/sealed-file.ts), the one writer and reader of "a body followed by its SHA-256": a flipped byte and
// a truncation are each refused with the reason named, in the primitive and in each file kind sealed with it (a pack
// index, the consolidated chunk index, a manifest); an intact file reads back (the negative control).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConsolidatedIndex, encodeConsolidated } from '../../harness/store/index/consolidated-index.js';
import { inspectManifest, serializeManifest } from '../../harness/store/manifest.js';
import { encodePackIndex, loadPackIndex } from '../../harness/store/index/pack-index.js';
import { jsonSealHolds, SEAL_BYTES, seal, sealJson, unseal } from '../../harness/store/sealed-file.js';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'soak-sealed-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** `buf` with byte `at` flipped. */
const flipped = (buf: Buffer, at: number): Buffer => {
  const out = Buffer.from(buf);
  out[at] = out[at]! ^ 0x01;
  return out;
};
const hash = (c: string): string => c.repeat(64);

describe('binary sealed bytes', () => {
  const body = Buffer.from('a body of some bytes');
  const sealed = seal(body);

  it('read back whole; the body is what was sealed', () => {
    expect(sealed.length).toBe(body.length + SEAL_BYTES);
    expect(unseal(sealed)).toEqual(body);
  });

  it('a flipped byte (body or digest) and a truncation are each refused by name', () => {
    const check = 'fails its SHA-256 check (truncated or altered)';
    expect(unseal(flipped(sealed, 3))).toBe(check);
    expect(unseal(flipped(sealed, sealed.length - 1))).toBe(check);
    expect(unseal(sealed.subarray(0, sealed.length - 1))).toBe(check);
    expect(unseal(sealed.subarray(0, SEAL_BYTES - 1))).toBe('too short for its SHA-256');
  });
});

describe('sealed JSON', () => {
  it('the digest is the last field; an edited field or a dropped check fails it', () => {
    const { text, check } = sealJson({ seq: 7, parts: ['a'] });
    const obj = JSON.parse(text) as Record<string, unknown>;
    expect(Object.keys(obj)).toEqual(['seq', 'parts', 'check']);
    expect(obj.check).toBe(check);
    expect(jsonSealHolds(obj)).toBe(true);
    const edited: Record<string, unknown> = { ...obj, seq: 8 };
    const unsealed: Record<string, unknown> = { seq: 7, parts: ['a'] };
    expect(jsonSealHolds(edited)).toBe(false);
    expect(jsonSealHolds(unsealed)).toBe(false);
    expect(jsonSealHolds(JSON.parse(sealJson({}).text) as object)).toBe(true);
  });
});

describe('each sealed file kind refuses a flipped byte and a truncation', () => {
  it('a pack index: the reason names the check', () => {
    const bytes = encodePackIndex('0123456789abcdef', [[hash('a'), 0, 100]]);
    const at = (name: string, b: Buffer): string => {
      const file = path.join(tmp, `${name}.idx`);
      writeFileSync(file, b);
      return file;
    };
    expect(loadPackIndex(at('good', bytes))).toMatchObject({ pack: '0123456789abcdef' });
    expect(loadPackIndex(at('flip', flipped(bytes, 20)))).toBe('fails its check (check): truncated or altered');
    expect(loadPackIndex(at('cut', bytes.subarray(0, bytes.length - 5)))).toBe(
      'fails its check (check): truncated or altered',
    );
  });

  it('the consolidated chunk index: refused (the store then reads the pack indexes)', () => {
    const loc = { pack: '0123456789abcdef', offset: 0, length: 10, codec: 0 as const, inner: 0, rawLength: 10 };
    const bytes = encodeConsolidated(['0123456789abcdef'], new Map([[hash('b'), loc]]));
    expect(ConsolidatedIndex.decode(bytes)?.count).toBe(1);
    expect(ConsolidatedIndex.decode(flipped(bytes, bytes.length - 40))).toBeNull();
    expect(ConsolidatedIndex.decode(bytes.subarray(0, bytes.length - 1))).toBeNull();
  });

  it('a manifest: an edited byte fails its check, a cut one is not whole JSON', () => {
    const { text } = serializeManifest({
      schemaVersion: 4,
      seq: 3,
      step: 9,
      createdAt: '2026-01-01T00:00:00Z',
      parts: [],
      chunkList: [],
      logicalBytes: 0,
      storedBytes: 0,
      chunks: 0,
      newChunks: 0,
      meta: {},
    });
    expect(inspectManifest(text)).toMatchObject({ seq: 3 });
    expect(inspectManifest(text.replace('"step":9', '"step":8'))).toEqual({
      problem: 'fails its check (a field was edited or a bit flipped)',
    });
    expect(inspectManifest(text.slice(0, -2))).toEqual({
      problem: `is not whole JSON (${text.length - 2} bytes: truncated or garbage)`,
    });
  });
});
