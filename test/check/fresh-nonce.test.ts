// The fresh-session nonce rule: a new session's nonce must be new to the run.
import { describe, expect, it } from 'vitest';
import { checkFreshNonce } from '../../harness/check/fresh-nonce.js';

describe('checkFreshNonce', () => {
  it('passes a nonce no earlier session had', () => {
    expect(checkFreshNonce('00000000000000aa', new Set(['00000000000000bb']))).toEqual([]);
  });
  it('fails a nonce an earlier session had, naming it', () => {
    const v = checkFreshNonce('00000000000000bb', new Set(['00000000000000aa', '00000000000000bb']));
    expect(v.map((x) => x.code)).toEqual(['nonce-reused']);
    expect(v[0]!.message).toContain('00000000000000bb');
  });
});
