// `soak check <run-dir>` through the real CLI: a fresh run re-checks to its journaled verdicts (exit 0); the same
// journal with one stored observation made inconsistent reports that cycle's verdict as changed (exit 1, the negative
// control); a journal written before observations says so (exit 2); a missing run folder is bad input (exit 3).
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeEvent } from '../../harness/journal/codec.js';
import type { JournalEvent, ObservationEvent } from '../../harness/journal/events.js';
import { cliPath, fixturePath } from '../helpers/paths.js';
import { describeResult, soakIn } from '../helpers/cli.js';

let tmp: string;
let runDir: string;

const soak = soakIn(() => tmp, 170_000);
const out = describeResult;

/** A copy of the run's journal (in a new run folder) with line `n` (0-based) of it replaced. */
function editedRun(name: string, change: (e: JournalEvent, n: number) => JournalEvent): string {
  const dir = path.join(tmp, name);
  mkdirSync(dir);
  const lines = readFileSync(path.join(runDir, 'journal.ndjson'), 'utf8').trimEnd().split('\n');
  const edited = lines.map((l, n) => encodeEvent(change(JSON.parse(l) as JournalEvent, n)));
  writeFileSync(path.join(dir, 'journal.ndjson'), `${edited.join('\n')}\n`);
  return dir;
}

beforeAll(async () => {
  if (!existsSync(cliPath)) throw new Error(`${cliPath} is missing: build first (npm run build)`);
  tmp = mkdtempSync(path.join(os.tmpdir(), 'soak-check-'));
  const r = await soak('run', '--cycles', '3', '--boot-samples', '0', '--seed', '5', '--out', 'runs', '--no-report');
  expect(r.stdout, out(r)).toContain('(complete, 3 cycles run now');
  const [dir] = readdirSync(path.join(tmp, 'runs')).filter((d) => d !== 'latest');
  runDir = path.join(tmp, 'runs', dir!);
}, 180_000);
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('soak check', () => {
  it('a fresh run: every cycle re-checked from its observation agrees (exit 0)', async () => {
    const r = await soak('check', runDir);
    expect(r.exitCode, out(r)).toBe(0);
    expect(r.stdout).toContain('re-checked 3 of 3 cycles from their journaled observations: 3 agree, 0 changed');
    expect(r.stdout.trimEnd().split('\n').at(-1)).toBe('verdict: PASS');
  });

  it('--json: the counts, machine-readable', async () => {
    const r = await soak('check', runDir, '--json');
    expect(r.exitCode, out(r)).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({
      schemaVersion: 1,
      cycles: 3,
      rechecked: 3,
      agreed: 3,
      changed: [],
    });
  });

  it('negative control: one stored observation edited (mem digest changed) is reported as a changed verdict (exit 1)', async () => {
    let target = -1;
    const dir = editedRun('edited', (e) => {
      if (e.type !== 'observation' || target !== -1) return e;
      target = e.cycle;
      const obs: ObservationEvent = { ...e, mem: { step: e.mem!.step, digest: '0'.repeat(64) } };
      return obs;
    });
    expect(target).toBeGreaterThan(0);
    const r = await soak('check', dir);
    expect(r.exitCode, out(r)).toBe(1);
    expect(r.stdout).toContain('2 agree, 1 changed');
    expect(r.stdout).toContain(
      `cycle ${target}: verdict changed: journaled ok, re-check fail (digest: mem: digest at step`,
    );
    expect(r.stdout.trimEnd().split('\n').at(-1)).toBe('verdict: FAIL');
  });

  it('a journal written before observations were journaled: "no observations recorded" (exit 2)', async () => {
    const dir = path.join(tmp, 'old');
    cpSync(fixturePath('journals', 'process-torn-checkpoint'), dir, { recursive: true });
    const r = await soak('check', dir);
    expect(r.exitCode, out(r)).toBe(2);
    expect(r.stdout).toContain('no observations recorded');
    expect(r.stdout.trimEnd().split('\n').at(-1)).toBe('verdict: NO OBSERVATIONS');
  });

  it('an old journal with journaled failures: they outrank "no observations" (exit 1)', async () => {
    const dir = path.join(tmp, 'old-failed');
    cpSync(fixturePath('journals', 'process-default'), dir, { recursive: true });
    const r = await soak('check', dir);
    expect(r.exitCode, out(r)).toBe(1);
    expect(r.stdout).toContain('no observations recorded');
    expect(r.stdout).toContain('the run journaled 6 failed cycles');
  });

  it('a folder that is not a run folder is bad input (exit 3)', async () => {
    const r = await soak('check', path.join(tmp, 'nope'));
    expect(r.exitCode, out(r)).toBe(3);
    expect(r.stderr).toContain('does not exist');
  });
});
