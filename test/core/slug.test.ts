import { describe, expect, test } from 'vitest';
import { slug } from '../../harness/core/slug.js';

describe('slug', () => {
  test('lowercases and joins words with dashes', () => {
    expect(slug('Nightly Soak 30')).toBe('nightly-soak-30');
  });
  test('a hostile name can never make a path', () => {
    expect(slug('<script>alert(1)</script>')).toBe('script-alert-1-script');
    expect(slug('../../etc/passwd')).toBe('etc-passwd');
    expect(slug('..')).toBe('scenario');
    expect(slug('a/b\\c\u0000d')).toBe('a-b-c-d');
    for (const s of ['../x', '/abs', 'C:\\win', 'x\ny', '💥', '']) expect(slug(s)).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
  });
  test('folds accents and falls back when nothing is left', () => {
    expect(slug('Café Résumé')).toBe('cafe-resume');
    expect(slug('***')).toBe('scenario');
  });
  test('caps the length without a trailing dash', () => {
    const long = slug(`${'a'.repeat(59)} b c`);
    expect(long.length).toBeLessThanOrEqual(60);
    expect(long.endsWith('-')).toBe(false);
  });
  test('a shorter cap (run ids use 40) cuts there, again without a trailing dash', () => {
    expect(slug(`${'x'.repeat(39)} yz`, 40)).toBe('x'.repeat(39));
    expect(slug('Ünïcode Scenario Name That Goes On And On For Ever', 40)).toBe(
      'unicode-scenario-name-that-goes-on-and-o',
    );
  });
});
