// Validate a CLI output against its checked-in JSON Schema (schemas/<name>.schema.json) with ajv.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { OutputName } from '../../harness/report/output-schemas.js';
import { repoRoot } from './paths.js';

/** A validator of output `name`: the list of problems ("/path message"), empty when it is valid. */
export function validatorFor(name: OutputName): (data: unknown) => string[] {
  const ajv = new Ajv2020({ allErrors: true, strict: false });
  const schema = JSON.parse(readFileSync(path.join(repoRoot, 'schemas', `${name}.schema.json`), 'utf8')) as object;
  const validate = ajv.compile(schema);
  return (data) => (validate(data) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message ?? ''}`));
}
