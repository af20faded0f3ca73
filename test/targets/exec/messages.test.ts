// The target protocol's wire format: the committed JSON Schemas are what the zod source generates, they accept real
// messages and refuse broken ones (ajv, draft 2020-12), and the host's own parser refuses what the schemas refuse.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { parseAdapterMessage, protocolJsonSchemas } from '../../../harness/targets/exec/messages.js';
import { repoRoot } from '../../helpers/paths.js';

const dir = path.join(repoRoot, 'schemas', 'target-protocol');
const digest = 'a'.repeat(64);

describe('target protocol schemas', () => {
  it('schemas/target-protocol/ is up to date (soak target schemas)', () => {
    const generated = protocolJsonSchemas();
    expect(readdirSync(dir).sort()).toEqual(Object.keys(generated).sort());
    for (const [name, schema] of Object.entries(generated))
      expect(JSON.parse(readFileSync(path.join(dir, name), 'utf8')), name).toEqual(schema);
  });

  it('accepts a full heartbeat and refuses one with a short digest (ajv and the host parser agree)', () => {
    const ajv = new Ajv2020({ strict: true });
    const validate = ajv.compile(JSON.parse(readFileSync(path.join(dir, 'adapter-hb.json'), 'utf8')) as object);
    const hb = { type: 'hb', step: 3, nonce: 'n', full: true, fs: { step: 3, digest }, mem: { step: 3, digest } };
    const bad = { ...hb, mem: { step: 3, digest: 'abc' } };
    expect(validate(hb)).toBe(true);
    expect(validate(bad)).toBe(false);
    expect(parseAdapterMessage(hb).ok).toBe(true);
    const r = parseAdapterMessage(bad);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.problem).toContain('mem.digest');
  });

  it('refuses an unknown message type and an unknown field', () => {
    expect(parseAdapterMessage({ type: 'hello' }).ok).toBe(false);
    expect(parseAdapterMessage({ type: 'log', message: 'x', extra: 1 }).ok).toBe(false);
  });
});
