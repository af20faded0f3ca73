// Damaged manifests are never silent (finding 2): a flipped bit, truncated JSON, garbage or an edited field makes
// verify name the file (exit 1), gc refuse and delete nothing, and stats and newest() say what they skipped.
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EXIT, IntegrityError } from '../../harness/core/errors.js';
import { gcStore } from '../../harness/store/gc.js';
import { Store } from '../../harness/store/store.js';
import { storeStats, verifyStore } from '../../harness/store/check/verify.js';
import { bytes } from '../helpers/bytes.js';
import { thrown } from '../helpers/thrown.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'soak-manifest-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** Four checkpoints, each with a part only it uses (so gc --keep 2 would reclaim chunks). */
async function fill(): Promise<void> {
  const store = Store.open(dir);
  for (let i = 1; i <= 4; i++) {
    const w = store.begin(i * 10);
    await w.put('own', bytes(`own${i}`, 16 * 4096));
    w.commit();
  }
  store.close();
}

const damages: Record<string, (text: string) => string> = {
  'flipped bit': (t) => {
    const at = t.indexOf('"createdAt":"') + 16; // a digit of the year: still JSON, no longer what was written
    return t.slice(0, at) + String.fromCharCode(t.charCodeAt(at) ^ 1) + t.slice(at + 1);
  },
  'truncated JSON': (t) => t.slice(0, Math.floor(t.length / 2)),
  garbage: () => bytes('garbage', 300).toString('latin1'),
  'edited field': (t) => {
    const m = JSON.parse(t) as { step: number };
    return JSON.stringify({ ...m, step: m.step + 1 }); // the old check stays: it no longer matches
  },
};

/** Every file of the store's packs/ and checkpoints/ with its digest. */
function snapshot(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const sub of ['packs', 'checkpoints'])
    for (const f of readdirSync(path.join(dir, sub)))
      out[`${sub}/${f}`] = createHash('sha256')
        .update(readFileSync(path.join(dir, sub, f)))
        .digest('hex');
  return out;
}

describe.each(Object.entries(damages))('a manifest with a %s', (_name, damage) => {
  it('is named by verify (exit 1), stops gc before it deletes anything, and is reported by stats and newest()', async () => {
    await fill();
    const file = path.join(dir, 'checkpoints', '0000000004.json');
    writeFileSync(file, damage(readFileSync(file, 'utf8')));
    const store = Store.open(dir);
    try {
      const problems = verifyStore(store).problems;
      expect(problems).toHaveLength(1);
      expect(problems[0]).toMatchObject({ seq: 4, part: '(manifest)' });
      expect(problems[0]!.problem).toContain(file);

      const before = snapshot();
      const err = thrown(() => gcStore(store, 2));
      expect(err).toBeInstanceOf(IntegrityError);
      expect(err).toHaveProperty('exitCode', EXIT.fail);
      expect(err.message).toContain(file);
      expect(snapshot()).toEqual(before);

      expect(storeStats(store).skipped.map((s) => s.file)).toEqual([file]);
      const { manifest, skipped } = store.newest();
      expect(manifest?.seq).toBe(3);
      expect(skipped.map((s) => s.file)).toEqual([file]);
    } finally {
      store.close();
    }
  });
});

describe('negative control', () => {
  it('an intact store verifies clean and gc --keep 2 reclaims the two oldest checkpoints', async () => {
    await fill();
    const store = Store.open(dir);
    try {
      expect(verifyStore(store).problems).toEqual([]);
      expect(store.newest()).toMatchObject({ skipped: [] });
      expect(gcStore(store, 2).removed).toEqual([1, 2]);
    } finally {
      store.close();
    }
  });
});
