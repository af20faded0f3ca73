// The checked-in JSON Schemas (schemas/*.schema.json) equal what the zod schemas generate (UPDATE_SCHEMAS=1 rewrites
// them), every schema under schemas/ compiles in ajv's strict mode, and summary.json of a real journal validates with
// ajv while a planted wrong field is rejected.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadRuns } from '../../harness/analysis/load-runs.js';
import { judge } from '../../harness/gates/judge.js';
import { OUTPUT_SCHEMAS, outputJsonSchema, type OutputName } from '../../harness/report/output-schemas.js';
import { writeReport } from '../../harness/report/write.js';
import { fixturePath, repoRoot } from '../helpers/paths.js';
import { strictJsonSchema } from '../../harness/core/json-schema.js';
import { strictAjv, validatorFor } from '../helpers/schemas.js';
import { z } from 'zod';

const names = Object.keys(OUTPUT_SCHEMAS) as OutputName[];
const file = (name: OutputName): string => path.join(repoRoot, 'schemas', `${name}.schema.json`);
const tmp = mkdtempSync(path.join(os.tmpdir(), 'soak-schemas-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** Every JSON Schema file under schemas/ (the outputs' and the target protocol's). */
function schemaFiles(dir = path.join(repoRoot, 'schemas')): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) =>
    d.isDirectory() ? schemaFiles(path.join(dir, d.name)) : d.name.endsWith('.json') ? [path.join(dir, d.name)] : [],
  );
}

describe('schemas/', () => {
  it('every schema compiles under new Ajv2020({ strict: true })', () => {
    const files = schemaFiles();
    expect(files.length).toBeGreaterThanOrEqual(names.length + 10);
    for (const f of files)
      expect(() => strictAjv().compile(JSON.parse(readFileSync(f, 'utf8')) as object), f).not.toThrow();
  });

  it("negative control: zod's own union type does not compile strictly; the one home of the generator rewrites it", () => {
    const union = z.object({ info: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])) });
    expect(() => strictAjv().compile(z.toJSONSchema(union))).toThrow(/allowUnionTypes/);
    const strict = strictAjv().compile(strictJsonSchema(union));
    expect(strict({ info: { a: 'x', b: 1, c: true } })).toBe(true);
    expect(strict({ info: { a: null } })).toBe(false);
  });

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
