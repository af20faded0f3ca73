// The crash barrier's meeting rules (nemesis/crash-barrier.ts), on fake hosts (an EventEmitter with the fields the
// barrier reads and a kill() that records its call: no process is needed to test who waits for whom) and a journal
// that collects events. Real hosts and kills: test/e2e/host-crash-sessions.test.ts.
import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import type { CycleEvent, EventInput } from '../../harness/journal/events.js';
import type { JournalWriter } from '../../harness/journal/writer.js';
import { CrashBarrier } from '../../harness/nemesis/crash-barrier.js';
import type { CrashTurn } from '../../harness/nemesis/fault.js';
import { parseScenario } from '../../harness/scenario/scenario.js';
import type { HostHandle } from '../../harness/session/host-handle.js';

const scenario = (sessions: number) =>
  parseScenario(
    [
      'name: t',
      `sessions: ${sessions}`,
      'faults: [{ kind: host-crash }]',
      'kill: { workDelayMs: [0, 0], checkpointDelayMs: [0, 0] }',
      'resumeTimeoutMs: 100',
      'hostTimeoutMs: 100',
    ].join('\n'),
    't.yaml',
  );

/** A fake host: committed at step 10, and a log of the kills sent to it (shared across hosts: the order). */
class FakeHost extends EventEmitter {
  maxStep = 10;
  lastCommitted = { seq: 1, step: 10 };
  restoredFrom = null;
  exited = null;
  constructor(
    readonly id: number,
    private readonly kills: number[],
  ) {
    super();
  }
  kill(): number {
    this.kills.push(this.id);
    return performance.now();
  }
  beat(step: number): void {
    this.maxStep = step;
    this.emit('msg', { ev: 'hb', step }, performance.now());
  }
}

function setup(sessions: number) {
  const events: EventInput[] = [];
  const journal = { append: (e: EventInput) => void events.push(e) } as unknown as JournalWriter;
  const barrier = new CrashBarrier(scenario(sessions), journal, {});
  const kills: number[] = [];
  const hosts = Array.from({ length: sessions }, (_, i) => new FakeHost(i, kills));
  const members = hosts.map((_, i) => barrier.member(i));
  const meet = (i: number, cycle = 1): Promise<CrashTurn> =>
    members[i]!.meet(cycle, hosts[i] as unknown as HostHandle, () => {});
  return { events, kills, hosts, members, meet };
}

const settled = (downtimeMs: number | null) => ({ type: 'cycle', downtimeMs }) as unknown as CycleEvent;

describe('CrashBarrier', () => {
  it('kills nobody before every session came and showed a step past its checkpoint, then all in one loop', async () => {
    const { kills, hosts, meet, members, events } = setup(3);
    const turns = [meet(0), meet(1)];
    hosts[0]!.beat(11);
    expect(kills).toEqual([]); // session 2 has not come
    turns.push(meet(2));
    hosts[0]!.beat(12);
    hosts[1]!.beat(11);
    expect(kills).toEqual([]); // session 2 is still at its checkpoint (step 10)
    hosts[2]!.beat(10);
    expect(kills).toEqual([]);
    hosts[2]!.beat(11);
    expect(kills).toEqual([0, 1, 2]);
    const got = await Promise.all(turns);
    expect(got.every((t) => t.kind === 'crashed')).toBe(true);
    // journaled once every session has its outcome: the last one back sets the time
    members[0]!.settled(1, settled(5));
    members[1]!.settled(1, settled(7));
    expect(events).toEqual([]);
    members[2]!.settled(1, settled(null));
    expect(events).toMatchObject([{ type: 'host-crash', cycle: 1, sessions: 3, killed: 0, back: 2, lastBackMs: null }]);
  });

  it('counts every session back with the last one timed from the crash', async () => {
    const { hosts, meet, members, events } = setup(2);
    const turns = [meet(0), meet(1)];
    hosts.forEach((h) => h.beat(11));
    const [a, b] = (await Promise.all(turns)) as Extract<CrashTurn, { kind: 'crashed' }>[];
    members.forEach((m) => m.died(1, true));
    members[0]!.settled(1, settled(100));
    members[1]!.settled(1, settled(50));
    const last = Math.max(a!.tKill + 100, b!.tKill + 50) - Math.min(a!.tKill, b!.tKill);
    expect(events).toMatchObject([{ sessions: 2, killed: 2, back: 2 }]);
    expect((events[0] as { lastBackMs: number }).lastBackMs).toBeGreaterThanOrEqual(last - 0.01);
  });

  it('does not wait for a session that ended the cycle without a host, or whose loop ended', async () => {
    const { kills, hosts, meet, members } = setup(3);
    const turn = meet(0);
    members[1]!.ended(1); // its cycle 1 ended without reaching the crash (its start failed)
    members[2]!.leave(); // its loop ended (aborted, stopped)
    hosts[0]!.beat(11);
    expect(await turn).toMatchObject({ kind: 'crashed' });
    expect(kills).toEqual([0]);
  });

  it("a session that never comes makes the crash the harness's failure (crash-barrier), and a late one is told so", async () => {
    const { kills, meet } = setup(2);
    const turn = await meet(0); // session 1 never comes: the bounded wait runs out (no progress for its bound)
    expect(turn).toMatchObject({ kind: 'gave-up', cause: { code: 'crash-barrier' } });
    expect(turn.kind === 'gave-up' && turn.cause.message).toMatch(/session 1 did not reach it/);
    expect(await meet(1)).toMatchObject({ kind: 'gave-up', cause: { code: 'crash-barrier' } });
    expect(kills).toEqual([]);
  });

  it('a session seen at no step past its checkpoint within the host timeout fails the crash, killing nobody', async () => {
    const { kills, hosts, meet } = setup(2);
    const turns = Promise.all([meet(0), meet(1)]);
    hosts[0]!.beat(11);
    const got = await turns;
    expect(got.map((t) => t.kind)).toEqual(['gave-up', 'gave-up']);
    expect(got[0].kind === 'gave-up' && got[0].cause.message).toMatch(/session 1 showed no step past its checkpoint/);
    expect(kills).toEqual([]);
  });

  it("a storm's loop acts on every host instead of killing it, and its reports are handed on once, in session order", async () => {
    const { kills, hosts, members, events } = setup(3);
    const asked: number[] = [];
    const act = (h: HostHandle): number => (asked.push((h as unknown as FakeHost).id), performance.now());
    const turns = Promise.all(members.map((m, i) => m.meet(1, hosts[i] as unknown as HostHandle, () => {}, act)));
    hosts.forEach((h) => h.beat(11));
    expect((await turns).map((t) => t.kind)).toEqual(['crashed', 'crashed', 'crashed']);
    expect([asked, kills]).toEqual([[0, 1, 2], []]);
    const wholes: unknown[][] = [];
    const whole = (r: unknown[]): void => void wholes.push(r);
    members[2]!.report(1, 'c', whole);
    members[0]!.report(1, 'a', whole);
    members.forEach((m) => m.settled(1, settled(5))); // a storm is never journaled as a host crash
    expect(wholes).toEqual([]);
    members[1]!.report(1, 'b', whole);
    expect([wholes, events]).toEqual([[['a', 'b', 'c']], []]);
  });

  it('plans the fault from the run seed in every session (the same crash cycles), each its own kill plan otherwise', () => {
    const s = parseScenario('name: t\nsessions: 4\nfaults: [{kind: host-crash}, {kind: sigkill}]\n', 't.yaml');
    const barrier = new CrashBarrier(s, { append: () => {} } as unknown as JournalWriter, {});
    const kinds = (i: number): string[] =>
      Array.from({ length: 20 }, (_, c) => barrier.member(i).plan(c + 1, { ...s, seed: 1000 + i }).fault.kind);
    expect(new Set([0, 1, 2, 3].map((i) => kinds(i).join()))).toHaveProperty('size', 1);
    expect(kinds(0)).toContain('host-crash');
    expect(kinds(0)).toContain('sigkill');
  });

  it("a registered act runs at the meeting in place of the SIGKILL loop: each session's turn as it says", async () => {
    const events: EventInput[] = [];
    const journal = { append: (e: EventInput) => void events.push(e) } as unknown as JournalWriter;
    const squeezing = parseScenario(
      ['name: t', 'sessions: 3', 'faults: [{ kind: memory-pressure }]', 'hostTimeoutMs: 100'].join('\n'),
      't.yaml',
    );
    const barrier = new CrashBarrier(squeezing, journal, {});
    const seen: number[][] = [];
    barrier.actOn('memory-pressure', (_cycle, hosts) => {
      seen.push([...hosts.keys()]);
      const turns = new Map<number, CrashTurn>([
        [0, { kind: 'spared' }],
        [1, { kind: 'crashed', tKill: 5 }],
      ]);
      return Promise.resolve(turns); // session 2: no turn given
    });
    const kills: number[] = [];
    const hosts = [0, 1, 2].map((i) => new FakeHost(i, kills));
    const turns = hosts.map((h, i) => barrier.member(i).meet(1, h as unknown as HostHandle, () => {}));
    for (const h of hosts) h.beat(11);
    const got = await Promise.all(turns);
    expect(seen).toEqual([[0, 1, 2]]);
    expect(kills).toEqual([]); // no SIGKILL loop: the act decides
    expect(got.slice(0, 2)).toEqual([{ kind: 'spared' }, { kind: 'crashed', tKill: 5 }]);
    expect(got[2]).toMatchObject({ kind: 'gave-up', cause: { code: 'crash-barrier' } });
    expect(events.filter((e) => e.type === 'host-crash')).toEqual([]);
  });

  it('an act that throws makes every session of the meeting the harness failure, with its message', async () => {
    const squeezing = parseScenario(
      ['name: t', 'sessions: 2', 'faults: [{ kind: memory-pressure }]'].join('\n'),
      't.yaml',
    );
    const barrier = new CrashBarrier(squeezing, { append: () => {} } as unknown as JournalWriter, {});
    barrier.actOn('memory-pressure', () => Promise.reject(new Error('cgroup gone')));
    const hosts = [0, 1].map((i) => new FakeHost(i, []));
    const turns = hosts.map((h, i) => barrier.member(i).meet(1, h as unknown as HostHandle, () => {}));
    for (const h of hosts) h.beat(11);
    for (const t of await Promise.all(turns))
      expect(t).toEqual({ kind: 'gave-up', cause: { code: 'crash-barrier', message: 'cycle 1: cgroup gone' } });
  });
});
