// The checked-in JSON Schemas (schemas/*.schema.json) equal what the zod schemas generate (UPDATE_SCHEMAS=1 rewrites
// them), and summary.json of a real journal validates with ajv while a planted wrong field is rejected.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadRuns } from '../../harness/analysis/load-runs.js';
import { judge } from '../../harness/gates/judge.js';
import { OUTPUT_SCHEMAS, outputJsonSchema, type OutputName } from '../../harness/report/output-schemas.js';
import { writeReport } from '../../harness/report/write.js';
import { fixturePath, repoRoot } from '../helpers/paths.js';
import { validatorFor } from '../helpers/schemas.js';

const names = Object.keys(OUTPUT_SCHEMAS) as OutputName[];
const file = (name: OutputName): string => path.join(repoRoot, 'schemas', `${name}.schema.json`);
const tmp = mkdtempSync(path.join(os.tmpdir(), 'soak-schemas-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('schemas/', () => {
  it.each(names)('%s.schema.json is what the zod schema generates', (name) => {
    const generated = `${JSON.stringify(outputJsonSchema(name), null, 2)}\n`;
    if (process.env['UPDATE_SCHEMAS'] === '1') writeFileSync(file(name), generated);
    expect(readFileSync(file(name), 'utf8'), 'run UPDATE_SCHEMAS=1 npx vitest run test/report/output-schemas').toBe(
      generated,
    );
  });

  it('validates the summary.json of a real journal, with its verdict and run status; rejects planted errors', async () => {
    const { analysis } = await loadRuns([fixturePath('journals', 'process-default')]);
    const { gates } = judge(analysis);
    const written = await writeReport({ analysis, gates, reportsDir: tmp });
    const summary = JSON.parse(readFileSync(path.join(written.dir, 'summary.json'), 'utf8')) as Record<string, unknown>;
    const validate = validatorFor('summary');
    expect(validate(summary)).toEqual([]);
    expect(summary['runStatus']).toEqual({ status: 'complete' });
    expect((summary['verdict'] as { headline: string }).headline).toMatch(/\w/);

    // negative controls: each planted error is caught, naming where
    const planted = (change: (s: Record<string, unknown>) => void): string[] => {
      const copy = structuredClone(summary);
      change(copy);
      return validate(copy);
    };
    expect(planted((s) => ((s['killResume'] as Record<string, unknown>)['trials'] = '6'))).toEqual([
      '/killResume/trials must be number',
    ]);
    expect(planted((s) => delete s['runStatus']).join()).toMatch(/runStatus/);
    expect(planted((s) => ((s['verdict'] as Record<string, unknown>)['level'] = 'maybe')).join()).toMatch(/level/);
    expect(planted((s) => (s['schemaVersion'] = 2)).join()).toMatch(/schemaVersion/);
  });
});
