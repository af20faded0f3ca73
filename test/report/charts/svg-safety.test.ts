import { describe, expect, test } from 'vitest';
import type { TopLevelSpec } from 'vega-lite';
import { renderSvg } from '../../../harness/report/charts/render.js';
import { assertSafeSvg, scopeSvgIds, UnsafeSvgError } from '../../../harness/report/charts/svg-safety.js';

const HOSTILE = `<script>alert(1)</script><img src=x onerror="alert(2)"> & "q" 'a'`;

describe('vega escapes text from data', () => {
  test('hostile title, axis title and category labels come out escaped', async () => {
    const spec: TopLevelSpec = {
      title: HOSTILE,
      data: {
        values: [
          { label: HOSTILE, v: 1 },
          { label: 'plain', v: 2 },
        ],
      },
      mark: 'bar',
      encoding: { y: { field: 'label', type: 'nominal', title: HOSTILE }, x: { field: 'v', type: 'quantitative' } },
    };
    const warnings: string[] = [];
    const svg = await renderSvg(spec, 'hostile', warnings);
    expect(svg).not.toContain('<script');
    expect(svg).not.toContain('<img');
    // The handler text survives only inside escaped text or attribute values, never as an attribute of a real tag.
    const attributeNames = [...svg.matchAll(/<[A-Za-z][\w:.-]*((?:\s+[\w:.-]+="[^"]*")*)\s*\/?>/g)].flatMap((m) =>
      [...(m[1] ?? '').matchAll(/([\w:.-]+)="/g)].map((a) => a[1]),
    );
    expect(attributeNames.length).toBeGreaterThan(100);
    expect(attributeNames.filter((a) => /^on|href/i.test(a ?? ''))).toEqual([]);
    expect(svg).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(() => assertSafeSvg(svg)).not.toThrow();
    expect(warnings).toEqual([]);
  });
});

describe('assertSafeSvg', () => {
  const ok = '<svg xmlns="http://www.w3.org/2000/svg"><g><text x="1">a &lt;b&gt;</text></g></svg>';
  test('accepts plain chart markup', () => {
    expect(() => assertSafeSvg(ok)).not.toThrow();
  });
  test.each([
    ['script element', '<svg><script>alert(1)</script></svg>'],
    ['foreignObject', '<svg><foreignObject><div/></foreignObject></svg>'],
    ['event handler', '<svg><g onload="alert(1)"></g></svg>'],
    ['link', '<svg><a href="javascript:alert(1)"><text>x</text></a></svg>'],
    ['href attribute', '<svg><path href="#x"/></svg>'],
    ['unterminated tag', '<svg><g <script></svg>'],
    ['empty', ''],
  ])('rejects %s', (_name, svg) => {
    expect(() => assertSafeSvg(svg)).toThrow(UnsafeSvgError);
  });
});

describe('scopeSvgIds', () => {
  test('prefixes ids and their url() references', () => {
    expect(scopeSvgIds('<clipPath id="clip1"></clipPath><g clip-path="url(#clip1)"></g>', 'chart-a')).toBe(
      '<clipPath id="chart-a-clip1"></clipPath><g clip-path="url(#chart-a-clip1)"></g>',
    );
  });
});
