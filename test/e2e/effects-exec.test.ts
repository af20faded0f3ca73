// External effects through the target protocol (issue 34, item 5, exec adapters): real `soak run`s of the example
// adapter (plain Node, no harness imports). With effects on, its step-key effects are never duplicated nor lost while
// random-key and no-key ones are, and it emits at exactly the steps and with exactly the keys the harness's own rule
// (effects/plan.ts, the process agent's) chooses for the seed. Negative controls: an adapter that declares no effects
// capability is refused before any run folder exists (exit 3, one line naming the adapter and the capability); one
// whose capability answer is malformed is an adapter fault (exit 5, naming the field). Waits only for the runs to end.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../harness/core/errors.js';
import { LedgerDb, LEDGER_FILE } from '../../harness/effects/ledger-db.js';
import { DISCIPLINES, effectStepsThrough, isEffectStep, stepKey } from '../../harness/effects/plan.js';
import type { JournalEvent } from '../../harness/journal/events.js';
import { createExecTarget } from '../../harness/targets/exec/target.js';
import { describeResult, runSoak } from '../helpers/cli.js';
import { repoRoot } from '../helpers/paths.js';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'soak-effects-exec-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const SEED = 3;
const EVERY = 2;
const example = path.join(repoRoot, 'adapters', 'example', 'adapter.mjs');

/** A scenario of the example adapter (or `adapter`) with effects on, in its own folder; returns that folder. */
function scenario(name: string, extra: string[], adapter = example): string {
  const dir = path.join(tmp, name);
  const lines = [
    `name: ${name}`,
    'target: exec',
    `adapter: ${adapter}`,
    ...extra,
    'cycles: 5',
    `seed: ${SEED}`,
    'stepMs: 5',
    'checkpoint: { everyMs: 100 }',
    'kill:',
    '  phases: { work: 1, checkpoint: 0, restore: 0 }',
    '  workDelayMs: [300, 500]',
    'resumeTimeoutMs: 30000',
    `effects: { everySteps: ${EVERY} }`,
    '',
  ];
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'scenario.yaml'), lines.join('\n'));
  return dir;
}
const run = (dir: string) => runSoak(['run', '--scenario', 'scenario.yaml'], { cwd: dir, timeoutMs: 300_000 });
const runFolders = (dir: string): string[] => {
  const runs = path.join(dir, 'runs');
  return existsSync(runs) ? readdirSync(runs).filter((f) => !f.startsWith('.')) : [];
};

describe('external effects through the example adapter', () => {
  it('never duplicates nor loses a step-key effect; random and no keys duplicate; the same steps and keys as the plan', async () => {
    const dir = scenario('emits', []);
    const r = await run(dir);
    expect([0, 1, 2], describeResult(r)).toContain(r.exitCode);
    const [folder] = runFolders(dir);
    const runDir = path.join(dir, 'runs', folder!);
    const events = readFileSync(path.join(runDir, 'journal.ndjson'), 'utf8')
      .split('\n')
      .filter((l) => l.length > 0)
      .map((l) => JSON.parse(l) as JournalEvent)
      .flatMap((e) => (e.type === 'effects' ? [e] : []));
    expect(events.length).toBeGreaterThan(0);
    const sum = (d: (typeof DISCIPLINES)[number], f: 'duplicates' | 'lost' | 'reEmitted' | 'deduplicated'): number =>
      events.reduce((n, e) => n + e.disciplines[d][f], 0);
    expect(sum('step-key', 'duplicates')).toBe(0);
    for (const d of DISCIPLINES) expect(sum(d, 'lost'), d).toBe(0);
    expect(sum('step-key', 'deduplicated')).toBe(sum('step-key', 'reEmitted'));
    expect(sum('random-key', 'duplicates') + sum('no-key', 'duplicates')).toBeGreaterThan(0);

    const db = LedgerDb.open(path.join(runDir, LEDGER_FILE), { readonly: true });
    const rows = db.rows();
    db.close();
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) {
      expect(isEffectStep(SEED, row.step, EVERY), `step ${row.step}`).toBe(true);
      expect(row.effect).toBe(`${row.discipline}:${row.step}`);
      if (row.discipline === 'step-key') expect(row.key).toBe(stepKey(row.session, row.step));
      else if (row.discipline === 'no-key') expect(row.key).toBeNull();
      else expect(row.key).toMatch(/^[0-9a-f]{32}$/);
    }
    // the first agent process ran from step 1: it emitted every step-key effect the plan names, no other
    const first = rows[0]!.incarnation;
    const steps = rows.filter((x) => x.incarnation === first && x.discipline === 'step-key').map((x) => x.step);
    expect(steps).toEqual(effectStepsThrough(SEED, Math.max(...steps), EVERY));
  }, 300_000);

  it('refuses effects on an adapter that declares no capability, before any run folder (exit 3)', async () => {
    const dir = scenario('refused', ['adapterOptions: { noEffects: true }']);
    const r = await run(dir);
    expect(r.exitCode, describeResult(r)).toBe(3);
    const line = r.stderr.split('\n').find((l) => l.includes('effect ledger'));
    expect(line).toContain(example);
    expect(line).toContain("effects: { reach: 'loopback' }");
    expect(runFolders(dir)).toEqual([]);
  }, 120_000);

  it('a session host handed the ledger refuses an adapter without the capability too', async () => {
    const work = path.join(tmp, 'host-side');
    mkdirSync(work, { recursive: true });
    const ledger = { ledger: '127.0.0.1:9', seed: SEED, everySteps: EVERY };
    const options = { adapter: example, adapterOptions: { noEffects: true }, effects: ledger };
    const err = await createExecTarget({ workDir: work, sessionDir: work, stepMs: 5, options }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as Error).message).toContain('cannot reach the effect ledger');
  }, 60_000);

  it('a malformed capability answer is an adapter fault naming the field (exit 5)', async () => {
    const broken = path.join(tmp, 'broken-adapter.mjs');
    const source = readFileSync(example, 'utf8');
    expect(source).toContain("effects: { reach: 'loopback' }");
    writeFileSync(broken, source.replace("effects: { reach: 'loopback' }", "effects: { reach: 'vsock' }"));
    const dir = scenario('broken', [], broken);
    const r = await run(dir);
    expect(r.exitCode, describeResult(r)).toBe(5);
    expect(r.stderr).toContain('effects.reach');
    expect(runFolders(dir)).toEqual([]);
  }, 120_000);
});
