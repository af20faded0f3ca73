// JSON text as prettier prints it (printWidth 120, 2 spaces): objects one key a line, an array on one line when it
// fits, else one element a line; a trailing newline. Generated files (schemas/target-protocol/) then pass prettier as written.

const WIDTH = 120;

/** A JSON value (what JSON.parse returns). */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** The value on one line, as prettier prints it when it fits; null when it cannot be (a non-empty object breaks). */
function flat(v: Json): string | null {
  if (v === null || typeof v !== 'object') return JSON.stringify(v);
  if (!Array.isArray(v)) return Object.keys(v).length === 0 ? '{}' : null;
  const items: string[] = [];
  for (const x of v) {
    const f = flat(x);
    if (f === null) return null;
    items.push(f);
  }
  return `[${items.join(', ')}]`;
}

/** `v` printed at `indent` after `prefix` (a key) on a line of `used` columns, with `suffix` (a comma) after it. */
function print(v: Json, indent: string, used: number, suffix: string): string {
  if (v === null || typeof v !== 'object') return JSON.stringify(v);
  const inner = `${indent}  `;
  if (Array.isArray(v)) {
    const one = flat(v);
    if (one !== null && used + one.length + suffix.length <= WIDTH) return one;
    const lines = v.map((x, i) => `${inner}${print(x, inner, inner.length, i < v.length - 1 ? ',' : '')}`);
    return `[\n${lines.join(',\n')}\n${indent}]`;
  }
  const keys = Object.keys(v);
  if (keys.length === 0) return '{}';
  const lines = keys.map((k, i) => {
    const head = `${inner}${JSON.stringify(k)}: `;
    return `${head}${print(v[k] as Json, inner, head.length, i < keys.length - 1 ? ',' : '')}`;
  });
  return `{\n${lines.join(',\n')}\n${indent}}`;
}

/** `value` as JSON text that prettier leaves as it is (its JSON output for a generated file), newline-terminated. */
export function prettyJson(value: unknown): string {
  const v = JSON.parse(JSON.stringify(value)) as Json; // drops undefined and functions, as JSON does
  return `${print(v, '', 0, '')}\n`;
}
