// The summary.json of a merged run (what every nightly publishes) validates against schemas/summary.schema.json in
// ajv's strict mode, with each source's store tally (sources[N].store, which the schema once lacked: issue 32), and so
// do the --json outputs of `soak merge` and `soak report` (runSoak validates them too).
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { describeResult, runSoak } from '../helpers/cli.js';
import { fixturePath } from '../helpers/paths.js';
import { validatorFor } from '../helpers/schemas.js';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'soak-merged-summary-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** A copy of fixture journal `name` whose run-end carries a store tally, as every run-end of a current runner does. */
function withStoreTally(name: string, checkpoints: number): string {
  const dir = path.join(tmp, name);
  mkdirSync(dir);
  const lines = readFileSync(fixturePath('journals', name, 'journal.ndjson'), 'utf8')
    .split('\n')
    .map((l) => {
      if (!l.includes('"type":"run-end"')) return l;
      const e = JSON.parse(l) as Record<string, unknown>;
      return JSON.stringify({ ...e, store: { checkpoints, logicalBytes: checkpoints * 4096, storedBytes: 2048 } });
    });
  writeFileSync(path.join(dir, 'journal.ndjson'), lines.join('\n'));
  return dir;
}

describe('a merged run summary.json', () => {
  it('validates strictly, sources[].store included', async () => {
    const sources = [withStoreTally('process-default', 7), withStoreTally('process-torn-checkpoint', 5)];
    const merged = path.join(tmp, 'merged');
    const m = await runSoak(['merge', ...sources, '--out', merged, '--json'], { cwd: tmp, timeoutMs: 120_000 });
    expect(m.exitCode, describeResult(m)).toBe(0);
    const reports = path.join(tmp, 'reports');
    const r = await runSoak(['report', merged, '--out', reports, '--json'], { cwd: tmp, timeoutMs: 120_000 });
    expect([0, 1, 2], describeResult(r)).toContain(r.exitCode);
    const { dir } = JSON.parse(r.stdout) as { dir: string };
    const summary = JSON.parse(readFileSync(path.join(dir, 'summary.json'), 'utf8')) as {
      sources: { store?: { checkpoints: number } }[];
    };
    expect(summary.sources.map((s) => s.store?.checkpoints)).toEqual([7, 5]);
    expect(validatorFor('summary')(summary)).toEqual([]);
    // negative control: a field the schema does not name is refused (additionalProperties: false at every depth)
    const planted = structuredClone(summary);
    Object.assign(planted.sources[0]!, { stash: 1 });
    expect(validatorFor('summary')(planted).join()).toMatch(/sources\/0 must NOT have additional properties/);
  });
});
