// End to end, `soak merge` (the real CLI): two 3,000-cycle journals, bigger than the command's write pieces, merge
// into exactly what the in-memory merge gives, and no temp file is left behind.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeSyntheticRun } from '../../bench/synthetic-journal.js';
import { mergeJournals } from '../../harness/journal/merge.js';
import { readJournal } from '../../harness/journal/writer.js';
import { describeResult, soakIn } from '../helpers/cli.js';

let tmp: string;
const soak = soakIn(() => tmp, 300_000);
const out = describeResult;

beforeAll(() => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'soak-e2e-merge-'));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('soak merge streams big journals', () => {
  it('merges two 3,000-cycle runs (7 MB, many write pieces) into exactly what the in-memory merge gives', async () => {
    const a = writeSyntheticRun(3000, 'soak-merge-a-');
    const b = writeSyntheticRun(3000, 'soak-merge-b-', 2); // a night of its own seed: one seed twice is refused
    try {
      expect(a.bytes + b.bytes).toBeGreaterThan(4 << 20); // more than 4 of the command's ~1 MiB write pieces
      const outDir = path.join(tmp, 'merged-big');
      const r = await soak('merge', a.dir, b.dir, '--out', outDir, '--json');
      expect(r.exitCode, out(r)).toBe(0);
      expect(JSON.parse(r.stdout)).toMatchObject({ sources: 2, cycles: 6000 });
      const want = mergeJournals(
        [a.dir, b.dir].map((d) => ({ events: readJournal(path.join(d, 'journal.ndjson')).events, source: d })),
        'merged-big',
      );
      const got = readJournal(path.join(outDir, 'journal.ndjson'));
      expect(got.tornTail).toBeNull();
      expect(got.events).toEqual(want);
      expect(readdirSync(tmp).filter((f) => f.includes('.tmp-'))).toEqual([]);
    } finally {
      rmSync(a.dir, { recursive: true, force: true });
      rmSync(b.dir, { recursive: true, force: true });
    }
  });
});
