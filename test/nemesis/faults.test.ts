// The fault registry: every kind a scenario may list has one fault object, filed under its own name, and the lazy file
// system is mounted exactly when a listed kind is delivered through it.
import { describe, expect, it } from 'vitest';
import { FAULTS, needsLazyfs } from '../../harness/nemesis/faults.js';
import { FAULT_KINDS, parseScenario } from '../../harness/scenario/scenario.js';

describe('FAULTS', () => {
  it('has one fault per kind a scenario may list, each filed under its own kind', () => {
    expect(Object.keys(FAULTS).sort()).toEqual([...FAULT_KINDS].sort());
    for (const [kind, fault] of Object.entries(FAULTS)) expect(fault.kind).toBe(kind);
  });

  it('needs lazyfs for power loss and injected write errors only', () => {
    const lazy = FAULT_KINDS.filter((k) => FAULTS[k].needsLazyfs).sort();
    expect(lazy).toEqual(['eio', 'enospc', 'power-loss']);
    const crash = parseScenario('name: t\nfaults: [{kind: host-crash, weight: 2}, {kind: freeze}]\n', 't.yaml');
    expect(needsLazyfs(crash)).toBe(false);
    expect(needsLazyfs({ faults: [...crash.faults, { kind: 'eio', weight: 1 }] })).toBe(true);
  });
});
