// The one home of how a zod schema becomes a published JSON Schema: zod's own generator, with every multi-type
// `type: [...]` (zod's output for a union of primitives) written as an `anyOf` of single types, so each published
// schema compiles in ajv's strict mode (`new Ajv2020({ strict: true })` refuses union types without allowUnionTypes;
// a nullable `[T, "null"]` it accepts, and it is kept).
import { z } from 'zod';

/** The generator's options this project uses (draft 2020-12 is zod's default target). */
export type JsonSchemaParams = Pick<NonNullable<Parameters<typeof z.toJSONSchema>[1]>, 'target' | 'io'>;

const TYPE_NAMES = new Set(['string', 'number', 'integer', 'boolean', 'object', 'array', 'null']);

/** A `type` value ajv strict mode refuses: two or more type names besides "null". */
function unionType(v: unknown): v is string[] {
  return (
    Array.isArray(v) &&
    v.every((t) => typeof t === 'string' && TYPE_NAMES.has(t)) &&
    v.filter((t) => t !== 'null').length > 1
  );
}

/** `node` and everything under it with each union `type: [a, b]` rewritten as `anyOf: [{type: a}, {type: b}]`. */
function singleTypes(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(singleTypes);
  if (node === null || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) {
    if (k === 'type' && unionType(v)) out['anyOf'] = v.map((type) => ({ type }));
    else out[k] = singleTypes(v);
  }
  return out;
}

/** `schema` as a JSON Schema that compiles under ajv strict mode. */
export function strictJsonSchema(schema: z.ZodType, params: JsonSchemaParams = {}): Record<string, unknown> {
  return singleTypes(z.toJSONSchema(schema, params)) as Record<string, unknown>;
}
