// The clone-entropy judgement: a session's and its clone's fingerprints of /dev/urandom, getrandom and a UUIDv4; all
// three must differ. Any source repeated is `changed`, naming it; a side without fingerprints is not-applicable.
import { describe, expect, it } from 'vitest';
import { compareCloneEntropy, withCloneEntropy } from '../../harness/check/clone-entropy.js';
import type { ProbeReport } from '../../harness/check/survival.js';

const report = (u: string, g: string, id: string): ProbeReport => ({
  mode: 'holder',
  observations: [
    { class: 'tmp-file', status: 'survives', detail: '/tmp/x' },
    {
      class: 'clone-entropy',
      status: 'not-applicable',
      detail: `urandom ${u} getrandom ${g} uuid ${id}: one session, compared with a clone by the harness`,
    },
  ],
});
const [A, B, C] = ['0123456789abcdef', 'fedcba9876543210', '00000000ffffffff'];

describe('compareCloneEntropy', () => {
  it('survives when every source differs', () => {
    expect(compareCloneEntropy(report(A, B, C), report(B, C, A))).toMatchObject({ status: 'survives', value: 0 });
  });

  it('changed when any source repeats, naming which (a single repeated source is enough)', () => {
    expect(compareCloneEntropy(report(A, B, C), report(A, B, C))).toMatchObject({
      status: 'changed',
      detail: 'session and clone read the same urandom, getrandom, uuid (3 of 3 sources repeated)',
      value: 3,
    });
    expect(compareCloneEntropy(report(A, B, C), report(B, A, C))).toMatchObject({
      status: 'changed',
      detail: expect.stringMatching(/the same uuid \(1 of 3/) as string,
    });
  });

  it('not-applicable, with the reason, when a side has no fingerprints', () => {
    const unreadable: ProbeReport = {
      mode: 'holder',
      observations: [{ class: 'clone-entropy', status: 'not-applicable', detail: 'cannot read getrandom' }],
    };
    expect(compareCloneEntropy(report(A, B, C), unreadable)).toEqual({
      class: 'clone-entropy',
      status: 'not-applicable',
      detail: 'the clone: cannot read getrandom',
    });
    expect(compareCloneEntropy({ mode: 'holder', observations: [] }, report(A, B, C)).detail).toBe(
      'the session: no clone-entropy observation',
    );
  });

  it('withCloneEntropy replaces only that observation', () => {
    const o = compareCloneEntropy(report(A, B, C), report(B, C, A));
    const r = withCloneEntropy(report(A, B, C), o);
    expect(r.observations).toEqual([report(A, B, C).observations[0], o]);
  });
});
