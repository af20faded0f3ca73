// The conformance kit's effects check (issue 34): a target that declares external effects (an exec adapter's describe
// answer `effects: { reach }`, or a built-in target whose options take an effect plan) must reach a real effect ledger
// from its sandbox: one booted session, an effect at every step, and an acknowledged row of that session in the ledger.
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { EffectLedger, ledgerFile } from '../effects/ledger.js';
import { LedgerDb } from '../effects/ledger-db.js';
import { LEDGER_TOKEN_ENV } from '../effects/plan.js';
import { describeTarget } from '../session/describe.js';
import { targetIssues } from '../targets/registry.js';
import { ConformanceSession, type ConformanceTarget } from './session.js';

/** The check's result: `not-declared` is no failure (a soak with effects is refused on such a target). */
export interface EffectsCheckResult {
  verdict: 'pass' | 'fail' | 'not-declared' | 'adapter-fault';
  evidence: string;
}

/** Steps the session may take, every one an effect step, before no acknowledged effect is a failure. */
const STEPS = 20;

/** Whether the target declares effects: its options take an effect plan, and an exec adapter's describe declares them. */
async function declared(t: ConformanceTarget, dir: string): Promise<string | null> {
  const plan = { ledger: '127.0.0.1:1', seed: 1, everySteps: 1 };
  const issues = await targetIssues(t.target, { ...t.targetOptions, effects: plan });
  if (issues.length > 0) return null;
  if (t.target !== 'exec') return `the ${t.target} target emits effects`;
  const s = new ConformanceSession(path.join(dir, 'describe'), t);
  const info = await describeTarget(s.config(), path.join(s.dir, 'hosts.log'), t.timeoutMs);
  return info['effectsReach'] === undefined ? null : `declares effects (reach ${String(info['effectsReach'])})`;
}

/** Run the check in `dir` (a folder of its own: ledger, store, logs). */
export async function checkEffects(t: ConformanceTarget, dir: string): Promise<EffectsCheckResult> {
  mkdirSync(dir, { recursive: true });
  const claim = await declared(t, dir);
  if (claim === null)
    return {
      verdict: 'not-declared',
      evidence: 'the target declares no way to the effect ledger: a soak with effects is refused on it',
    };
  LedgerDb.create(ledgerFile(dir)).close();
  const ledger = await EffectLedger.start(dir);
  const before = process.env[LEDGER_TOKEN_ENV];
  process.env[LEDGER_TOKEN_ENV] = ledger.token; // inherited by the host and its sandbox, never on a command line
  const effects = { ledger: ledger.address, seed: 1, everySteps: 1 };
  const s = new ConformanceSession(path.join(dir, 'session'), {
    ...t,
    targetOptions: { ...t.targetOptions, effects },
  });
  try {
    const host = s.start('boot');
    const { nonce, step } = await s.firstFull(host);
    const acked = (): number => ledger.rows(nonce).length;
    // progress, not a clock: the session's own steps, every one an effect step, until one is acknowledged
    const { msg } = await host.waitFor(
      (m) => m.ev === 'hb' && (acked() > 0 || m.step >= step + STEPS),
      t.timeoutMs,
      'an effect acknowledged by the ledger',
    );
    const at = msg.ev === 'hb' ? msg.step : step;
    const rows = ledger.rows(nonce);
    if (rows.length > 0)
      return {
        verdict: 'pass',
        evidence: `${claim}; the ledger acknowledged ${rows.length} effect(s) of session ${nonce} by step ${at} (first: ${rows[0]!.effect})`,
      };
    return {
      verdict: 'fail',
      evidence: `${claim} but no effect of session ${nonce} reached the ledger in ${at - step} steps, each an effect step`,
    };
  } catch (err) {
    const fault = s.adapterFault();
    if (fault !== null) return { verdict: 'adapter-fault', evidence: fault };
    return { verdict: 'fail', evidence: `${claim} but: ${(err as Error).message.split('\n')[0]!}` };
  } finally {
    await s.close();
    if (before === undefined) Reflect.deleteProperty(process.env, LEDGER_TOKEN_ENV);
    else process.env[LEDGER_TOKEN_ENV] = before;
    await ledger.close();
  }
}
