// The static C agent's external effects and the host's relay (issue 34): the real agent binary on a stdio console, a
// real EffectRelay and a real effect ledger (SQLite, TCP on 127.0.0.1). It emits at the plan's steps with the plan's
// keys (harness/effects/plan.ts: a wrong rule or key fails here), claims only effect steps wholly acknowledged, and when
// a reply is lost with its guest (a VM killed, or restored from a checkpoint taken mid-request) it sends the request
// again to the next incarnation's relay: the world then holds it twice, which the accounting counts, and loses nothing.
// Hostile console lines (malformed, oversized, forged fields) never reach the ledger; a valid one does (the control).
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Heartbeat } from '../../../harness/check/heartbeat.js';
import { accountEffects } from '../../../harness/effects/accounting.js';
import { EffectLedger, ledgerFile } from '../../../harness/effects/ledger.js';
import { LedgerDb } from '../../../harness/effects/ledger-db.js';
import { DISCIPLINES, effectStepsThrough, stepKey } from '../../../harness/effects/plan.js';
import { buildAgent } from '../../../harness/targets/guest/agent-build.js';
import { ConsoleReader } from '../../../harness/targets/guest/console.js';
import { EffectRelay, MAX_EFFECT_LINE, withIncarnation } from '../../../harness/targets/guest/effect-relay.js';
import { waitFor } from '../../helpers/microvm.js';

const SEED = 3; // step 1 is an effect step for seed 3, everySteps 2
const EVERY = 2;
const tmp = mkdtempSync(path.join(os.tmpdir(), 'soak-agent-effects-'));
let bin = '';
let ledger: EffectLedger;
beforeAll(async () => {
  bin = (await buildAgent(path.join(tmp, 'bin'))).file;
  const run = path.join(tmp, 'run');
  mkdirSync(run);
  LedgerDb.create(ledgerFile(run)).close();
  ledger = await EffectLedger.start(run);
}, 180_000);
afterAll(async () => {
  await ledger.close();
  rmSync(tmp, { recursive: true, force: true });
});

/** The agent on a stdio console with effects on, its lines through a ConsoleReader whose relay is `relay.current`. */
function startAgent(relay: { current: EffectRelay }): {
  agent: ChildProcessByStdio<Writable, Readable, null>;
  work: string;
  beats: Heartbeat[];
  reader: ConsoleReader;
} {
  const work = mkdtempSync(path.join(tmp, 'ws-'));
  const agent = spawn(bin, [work, '5', '-'], {
    stdio: ['pipe', 'pipe', 'inherit'],
    env: { ...process.env, SOAK_EFFECTS: `${SEED}:${EVERY}` },
  });
  const beats: Heartbeat[] = [];
  const reader = new ConsoleReader(
    (hb) => beats.push(withIncarnation(hb, relay.current)),
    20,
    undefined,
    undefined,
    (line) => relay.current.handle(line),
  );
  agent.stdout.setEncoding('utf8');
  agent.stdout.on('data', (c: string) => reader.push(c));
  return { agent, work, beats, reader };
}

const cfg = () => ({ ledger: ledger.address, seed: SEED, everySteps: EVERY });

describe('the C agent emits effects through the relay', () => {
  it('at the plan steps, with the plan keys; a full heartbeat claims only wholly acknowledged steps', async () => {
    const relay = { current: new EffectRelay(cfg(), (t) => agent.stdin.write(t), ledger.token) };
    const { agent, work, beats } = startAgent(relay);
    try {
      await waitFor(() => beats.find((b) => !b.full && b.step >= 12) ?? undefined, 60_000, 'step 12');
      agent.stdin.write('F');
      const full = await waitFor(() => beats.slice(1).find((b) => b.full), 60_000, 'a full heartbeat');
      const claim = full.effects!;
      expect(claim.incarnation).toBe(relay.current.incarnation);
      const steps = effectStepsThrough(SEED, claim.through, EVERY);
      expect(steps.length).toBeGreaterThan(2);
      for (const d of DISCIPLINES) expect(claim.acked[d], d).toBe(steps.length);
      const rows = ledger.rows(full.nonce).filter((r) => r.step <= claim.through);
      for (const d of DISCIPLINES)
        expect(
          rows.filter((r) => r.discipline === d).map((r) => r.step),
          d,
        ).toEqual(steps);
      for (const r of rows.filter((r) => r.discipline === 'step-key')) expect(r.key).toBe(stepKey(full.nonce, r.step));
      const random = rows.filter((r) => r.discipline === 'random-key').map((r) => r.key);
      expect(new Set(random).size).toBe(random.length);
      expect(rows.filter((r) => r.discipline === 'no-key').every((r) => r.key === null)).toBe(true);
      expect(rows.every((r) => r.incarnation === relay.current.incarnation && r.applied)).toBe(true);
      expect(readFileSync(path.join(work, 'effects.txt'), 'utf8')).toContain(`step-key:${steps[0]} seq `);
      // the accounting of this claim as a restored session's (another incarnation) would make it: nothing lost
      const restored = { ...claim, incarnation: 'restored' };
      const account = accountEffects(ledger.rows(), { session: full.nonce, claim: restored }, cfg());
      for (const d of DISCIPLINES) expect(account.fields.disciplines[d].lost, d).toBe(0);
    } finally {
      agent.kill('SIGKILL');
      relay.current.close();
    }
  }, 120_000);

  it('a reply lost with its guest: sent again to the next incarnation, applied once with its step key', async () => {
    const lost = new EffectRelay(cfg(), () => {}, ledger.token); // the world applies; the reply never reaches the guest
    const relay = { current: lost };
    const { agent, beats } = startAgent(relay);
    try {
      const nonce = (await waitFor(() => beats[0], 60_000, 'the first full heartbeat')).nonce;
      const first = await waitFor(() => ledger.rows(nonce)[0], 60_000, 'the first request in the ledger');
      expect(first).toMatchObject({ effect: 'step-key:1', applied: true, incarnation: lost.incarnation });
      // the next incarnation (a restored guest's new relay) and the restore's full-heartbeat request
      relay.current = new EffectRelay(cfg(), (t) => agent.stdin.write(t), ledger.token);
      agent.stdin.write('F');
      const full = await waitFor(() => beats.slice(1).find((b) => b.full), 60_000, 'the restored full heartbeat');
      expect(full.effects).toMatchObject({ through: 0, acked: { 'step-key': 0, 'random-key': 0, 'no-key': 0 } });
      await waitFor(() => beats.find((b) => !b.full && b.step >= 1), 60_000, 'step 1 done');
      const again = ledger.rows(nonce).filter((r) => r.effect === 'step-key:1');
      expect(again.map((r) => [r.incarnation, r.applied])).toEqual([
        [lost.incarnation, true],
        [relay.current.incarnation, false], // the world recognised the step key
      ]);
      // its accounting against the restored claim: world ahead, not lost
      const account = accountEffects(ledger.rows(), { session: nonce, claim: full.effects! }, cfg());
      expect(account.fields.disciplines['step-key']).toMatchObject({ worldAhead: 1, lost: 0 });
    } finally {
      agent.kill('SIGKILL');
      lost.close();
      relay.current.close();
    }
  }, 120_000);

  it('without a full-heartbeat request, the agent sends again after its own wait', async () => {
    const lost = new EffectRelay(cfg(), () => {}, ledger.token);
    const relay = { current: lost };
    const { agent, beats } = startAgent(relay);
    try {
      const nonce = (await waitFor(() => beats[0], 60_000, 'the first full heartbeat')).nonce;
      await waitFor(() => ledger.rows(nonce)[0], 60_000, 'the first request in the ledger');
      relay.current = new EffectRelay(cfg(), (t) => agent.stdin.write(t), ledger.token);
      await waitFor(() => ledger.rows(nonce)[1], 60_000, 'the request sent again');
      const [a, b] = ledger.rows(nonce);
      expect([a, b].map((r) => [r!.effect, r!.incarnation, r!.applied])).toEqual([
        ['step-key:1', lost.incarnation, true],
        ['step-key:1', relay.current.incarnation, false],
      ]);
    } finally {
      agent.kill('SIGKILL');
      lost.close();
      relay.current.close();
    }
  }, 120_000);
});

describe('hostile console lines never reach the ledger unchecked', () => {
  it('drops malformed, oversized and forged requests with a note; a valid one reaches the world', async () => {
    const replies: string[] = [];
    const relay = new EffectRelay(cfg(), (t) => replies.push(t), ledger.token);
    const reader = new ConsoleReader(
      () => {},
      50,
      undefined,
      undefined,
      (line) => relay.handle(line),
    );
    const session = 'ab'.repeat(8);
    const key = 'c'.repeat(32);
    const hostile = [
      `EFX ${session} step-key:5 step-key ${key} 5 ${'x'.repeat(MAX_EFFECT_LINE)}`, // oversized
      `EFX ${session} step-key:5 step-key ${key}${'0'.repeat(200_000)} 5`, // a flood inside one line
      `EFX ${session} maybe:5 maybe ${key} 5`, // unknown discipline
      `EFX ${session} no-key:5 no-key ${key} 5`, // a key for no-key
      `EFX ${session} random-key:5 random-key - 5`, // no key for a keyed discipline
      `EFX ${session} step-key:6 step-key ${key} 5`, // effect id names another step
      `EFX ${session} step-key:05 step-key ${key} 05`, // a second spelling of step 5
      `EFX {"token":"x","session":"${session}"}`, // JSON with a forged token
      `EFX ${session} step-key:5 step-key ${key} 5 extra`,
      `EFX ${session.toUpperCase()} step-key:5 step-key ${key} 5`,
    ];
    for (const line of hostile) reader.push(`${line}\n`);
    await new Promise((r) => setTimeout(r, 50)); // a request that got through would be on its way to the ledger now
    expect(ledger.rows(session)).toEqual([]);
    expect(replies).toEqual([]);
    const notes = reader.recentNoise().filter((n) => n.startsWith('effect request dropped'));
    expect(notes).toHaveLength(hostile.length);
    expect(notes.every((n) => n.length <= 300)).toBe(true);
    reader.push(`EFX ${session} step-key:5 step-key ${key} 5\n`); // the control: a valid request is relayed
    await waitFor(() => replies[0], 30_000, 'the reply to a valid request');
    expect(replies[0]).toMatch(/^efa step-key:5 \d+ 1\n$/);
    expect(ledger.rows(session)).toHaveLength(1);
    relay.close();
  });
});
