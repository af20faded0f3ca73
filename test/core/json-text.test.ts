// prettyJson prints JSON as prettier does: prettier leaves its output unchanged (the round trip), on the target
// protocol's schemas and on edge cases; JSON.stringify(v, null, 2) does not pass (the negative control).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import * as prettier from 'prettier';
import { describe, expect, it } from 'vitest';
import { prettyJson } from '../../harness/core/json-text.js';
import { protocolJsonSchemas } from '../../harness/targets/exec/messages.js';
import { repoRoot } from '../helpers/paths.js';

const prettierJson = async (text: string): Promise<string> => {
  const config = (await prettier.resolveConfig(path.join(repoRoot, 'schemas', 'x.json'))) ?? {};
  return prettier.format(text, { ...config, parser: 'json' });
};

const edge: unknown[] = [
  {},
  [],
  { a: [], b: {}, c: null, d: [1, 2, 3], e: 'é "quoted" \\ \u2028' },
  { list: Array.from({ length: 30 }, (_, i) => `item-${i}`) }, // too wide for one line
  { nested: [[1, 2], [3], [{}]], objs: [{ a: 1 }, { b: [true, false] }] },
  { exactly: ['x'.repeat(103)] }, // `  "exactly": ["x...x"]` is 120 columns: one line
  { exactly: ['x'.repeat(104)] }, // 121 columns: one element a line
  { k: ['y'.repeat(50)], l: ['z'.repeat(100)], m: 1 },
];

describe('prettyJson', () => {
  it.each(Object.entries(protocolJsonSchemas()))('%s: prettier leaves it as written; it parses back', async (_, s) => {
    const text = prettyJson(s);
    expect(await prettierJson(text)).toBe(text);
    expect(JSON.parse(text)).toEqual(s);
  });

  it.each(edge.map((v, i) => [i, v] as const))('edge case %i: prettier leaves it as written', async (_, v) => {
    const text = prettyJson(v);
    expect(await prettierJson(text)).toBe(text);
    expect(JSON.parse(text)).toEqual(v);
    expect(text.endsWith('}\n') || text.endsWith(']\n')).toBe(true);
  });

  it('the width boundary: 120 columns stay on one line, 121 break', () => {
    expect(prettyJson({ exactly: ['x'.repeat(103)] }).split('\n')[1]).toHaveLength(120);
    expect(prettyJson({ exactly: ['x'.repeat(104)] }).split('\n')[1]).toBe('  "exactly": [');
  });

  it('negative control: JSON.stringify(v, null, 2) of the schemas is reformatted by prettier', async () => {
    const outcomes = await Promise.all(
      Object.values(protocolJsonSchemas()).map(async (s) => {
        const text = `${JSON.stringify(s, null, 2)}\n`;
        return (await prettierJson(text)) === text;
      }),
    );
    expect(outcomes).toContain(false);
  });

  it('the checked-in schemas/target-protocol files are what `soak target schemas` writes', () => {
    for (const [name, s] of Object.entries(protocolJsonSchemas()))
      expect(readFileSync(path.join(repoRoot, 'schemas', 'target-protocol', name), 'utf8'), name).toBe(prettyJson(s));
  });
});
