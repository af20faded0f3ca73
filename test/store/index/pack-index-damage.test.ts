// A pack index truncated mid-entry (issue 30): readers pass over its pack as torn, so gc used to plan without it and
// delete checkpoints before verify ever named the file. Now gc checks every pack index before deleting anything and
// refuses naming the file (exit 1), and `soak store verify` names it. Real stores (test/helpers/store.ts), the damage
// done to the bytes on disk; the negative control is the same store with the index intact, which gc collects.
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, truncateSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { EXIT, IntegrityError } from '../../../harness/core/errors.js';
import { gcStore } from '../../../harness/store/gc.js';
import { Store } from '../../../harness/store/store.js';
import { verifyStore } from '../../../harness/store/check/verify.js';
import { describeResult, soakIn } from '../../helpers/cli.js';
import { fillStore } from '../../helpers/store.js';
import { thrown } from '../../helpers/thrown.js';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'soak-idx-damage-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const soak = soakIn(() => tmp, 60_000);

/** Every file of the store with its bytes, to show nothing changed. */
function snapshot(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const sub of ['packs', 'checkpoints'])
    for (const f of readdirSync(path.join(dir, sub)))
      out.set(`${sub}/${f}`, readFileSync(path.join(dir, sub, f)).toString('base64'));
  return out;
}

/** The pack holding checkpoint `seq`'s last ram chunk, and its index file. */
function indexOf(dir: string, seq: number): string {
  const s = Store.open(dir);
  try {
    const m = s.list().find((x) => x.seq === seq)!;
    const pack = s.locate(m.parts.find((p) => p.name === 'ram')!.chunks.at(-1)!)!.pack;
    return path.join(dir, 'packs', `${pack}.idx`);
  } finally {
    s.close();
  }
}

/** Header of a binary index: magic (8), pack id (8), entry count (4); an entry starts with its 32-byte hash. */
const HEADER = 20;

describe('a pack index truncated mid-entry', () => {
  // Checkpoint 6 is kept by --keep 2 (its chunks live); checkpoint 2 is removed (its pack holds only dead chunks, so
  // the old gc even reported success).
  it.each([
    ['a kept checkpoint', 6, 'inside the first entry', () => HEADER + 16],
    ['a removed checkpoint', 2, 'inside the last entry', (size: number) => size - 32 - 3],
  ])('of %s (%i), cut %s: gc refuses naming it, deletes nothing; verify names it', async (_w, seq, _c, cut) => {
    const dir = path.join(tmp, `cut-${seq}`);
    await fillStore(dir, 6);
    const idx = indexOf(dir, seq);
    const size = statSync(idx).size;
    expect(size).toBeGreaterThan(HEADER + 33 + 32);
    truncateSync(idx, cut(size));
    const before = snapshot(dir);
    const store = Store.open(dir);
    try {
      const err = thrown(() => gcStore(store, 2));
      expect(err).toBeInstanceOf(IntegrityError);
      expect(err).toHaveProperty('exitCode', EXIT.fail);
      expect(err.message).toContain(idx);
      expect(err.message).toMatch(/^gc deleted nothing: pack index .* fails its check/);
      expect(snapshot(dir)).toEqual(before);
      const problems = verifyStore(store).problems.filter((p) => p.part === '(pack index)');
      expect(problems).toHaveLength(1);
      expect(problems[0]!.problem).toContain(idx);
    } finally {
      store.close();
    }
  });

  it('through the CLI: store verify names the file (exit 1); store gc refuses in one line (exit 1), nothing deleted', async () => {
    const dir = path.join(tmp, 'cli');
    await fillStore(dir, 6);
    const idx = indexOf(dir, 4);
    truncateSync(idx, HEADER + 40);
    const before = snapshot(dir);
    const v = await soak('store', 'verify', dir);
    expect(v.exitCode, describeResult(v)).toBe(EXIT.fail);
    expect(v.stdout.split('\n')).toContain(`pack index ${idx} fails its check (check): truncated or altered`);
    const g = await soak('store', 'gc', dir, '--keep', '1');
    expect(g.exitCode, describeResult(g)).toBe(EXIT.fail);
    expect(g.stderr).toMatch(new RegExp(`^soak: gc deleted nothing: pack index ${idx} `));
    expect(g.stderr.trim().split('\n')).toHaveLength(1);
    expect(snapshot(dir)).toEqual(before);
  });

  it('negative control: the same store with every index intact is collected, and verifies clean', async () => {
    const dir = path.join(tmp, 'intact');
    await fillStore(dir, 6);
    const store = Store.open(dir);
    try {
      const report = gcStore(store, 2);
      expect(report.removed).toEqual([1, 2, 3, 4]);
      expect(report.missingChunks).toBe(0);
      expect(verifyStore(store).problems).toEqual([]);
    } finally {
      store.close();
    }
  });
});
