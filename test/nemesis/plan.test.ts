// The nemesis as data: a scenario without faults keeps today's kill plans (same seed, same plan), listing faults does
// not move them either, and each cycle's fault is a pure function of (seed, cycle) drawn by weight.
import { describe, expect, it } from 'vitest';
import {
  FREEZE_DEFAULT_MS,
  planFault,
  planFaultEntry,
  planKill,
  planWriteFailure,
  WRITE_FAILURE_WINDOW,
} from '../../harness/nemesis/plan.js';
import { needsLazyfs } from '../../harness/nemesis/faults.js';
import { parseScenario } from '../../harness/scenario/scenario.js';

const plain = parseScenario('name: t\nseed: 5\nkill: { phases: { work: 2, checkpoint: 1 } }\n', 't.yaml');
const withFaults = parseScenario(
  'name: t\nseed: 5\nkill: { phases: { work: 2, checkpoint: 1 } }\nfaults: [{kind: sigkill, weight: 3}, {kind: power-loss, weight: 1}]\n',
  't.yaml',
);

describe('planFault', () => {
  it('defaults to SIGKILL only, and needs no lazyfs', () => {
    expect(plain.faults).toEqual([]);
    for (let c = 1; c <= 50; c++) expect(planFault(plain, c)).toBe('sigkill');
    expect(needsLazyfs(plain)).toBe(false);
    expect(needsLazyfs(withFaults)).toBe(true);
  });

  it('leaves the kill plan of every cycle as it was (fault draws come from their own stream)', () => {
    for (let c = 1; c <= 200; c++) expect(planKill(withFaults, c)).toEqual(planKill(plain, c));
  });

  it('is a pure function of (seed, cycle), drawn by weight', () => {
    const kinds = Array.from({ length: 2000 }, (_, i) => planFault(withFaults, i + 1));
    expect(Array.from({ length: 2000 }, (_, i) => planFault(withFaults, i + 1))).toEqual(kinds);
    const share = kinds.filter((k) => k === 'power-loss').length / kinds.length;
    expect(share).toBeGreaterThan(0.2); // weight 1 of 4
    expect(share).toBeLessThan(0.3);
    const other = { ...withFaults, seed: 6 };
    expect(Array.from({ length: 50 }, (_, i) => planFault(other, i + 1))).not.toEqual(kinds.slice(0, 50));
  });

  it('an injected write error lands on a seeded write in [1, window], the same for the same (seed, cycle)', () => {
    const io = parseScenario('name: t\nseed: 9\nfaults: [{kind: enospc}, {kind: eio}]\n', 't.yaml');
    const ns = Array.from({ length: 200 }, (_, i) => planWriteFailure(io, i + 1));
    expect(Array.from({ length: 200 }, (_, i) => planWriteFailure(io, i + 1))).toEqual(ns);
    expect(Math.min(...ns)).toBe(1);
    expect(Math.max(...ns)).toBe(WRITE_FAILURE_WINDOW);
    expect(new Set(Array.from({ length: 200 }, (_, i) => planFault(io, i + 1)))).toEqual(new Set(['enospc', 'eio']));
  });

  it('rejects an unknown fault kind and a weight of 0, naming the field', () => {
    expect(() => parseScenario('name: t\nfaults: [{kind: meteor}]\n', 't.yaml')).toThrow(/faults\.0\.kind/);
    expect(() => parseScenario('name: t\nfaults: [{kind: sigkill, weight: 0}]\n', 't.yaml')).toThrow(
      /faults\.0\.weight/,
    );
  });
});

describe('freeze faults', () => {
  const freeze = parseScenario(
    'name: t\nseed: 3\nfaults: [{kind: sigkill}, {kind: freeze, durationMs: 500}, {kind: freeze, durationMs: 9000}, {kind: freeze}]\n',
    't.yaml',
  );

  it('plans each entry with its own duration (default FREEZE_DEFAULT_MS), a pure function of (seed, cycle)', () => {
    const plans = Array.from({ length: 400 }, (_, i) => planFaultEntry(freeze, i + 1));
    expect(Array.from({ length: 400 }, (_, i) => planFaultEntry(freeze, i + 1))).toEqual(plans);
    const durations = new Set(plans.filter((p) => p.kind === 'freeze').map((p) => p.durationMs));
    expect(durations).toEqual(new Set([500, 9000, FREEZE_DEFAULT_MS]));
    for (const p of plans) if (p.kind === 'sigkill') expect(p.durationMs).toBeUndefined();
    for (let c = 1; c <= 400; c++) expect(planFault(freeze, c)).toBe(plans[c - 1]!.kind);
  });

  it('needs no lazyfs (SIGSTOP and SIGCONT only)', () => {
    expect(needsLazyfs(freeze)).toBe(false);
    expect(needsLazyfs({ faults: [...freeze.faults, { kind: 'eio', weight: 1 }] })).toBe(true);
  });

  it('rejects durationMs on any kind but freeze, naming the field', () => {
    expect(() => parseScenario('name: t\nfaults: [{kind: sigkill, durationMs: 5}]\n', 't.yaml')).toThrow(
      /faults\.0\.durationMs/,
    );
  });
});
