// Warm standby (issue 16): with `standby: true` every resume after a kill is handed to a host started ahead of it,
// the run verifies as a cold one does, and the summary and report say a standby was used. Negative control: a
// standby that skips the restore (test-only switch) and reports the checkpoint anyway is caught by the checker.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execaNode } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import type { CycleEvent, HostStartEvent, JournalEvent } from '../../harness/journal/events.js';
import { STANDBY_SKIPS_RESTORE } from '../../harness/session/standby.js';
import { cliPath } from '../helpers/paths.js';
import { describeResult } from '../helpers/cli.js';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'soak-standby-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

if (!existsSync(cliPath)) throw new Error(`${cliPath} is missing: build first (npm run build)`);

const scenario = (name: string): string => {
  const file = path.join(tmp, `${name}.yaml`);
  writeFileSync(
    file,
    [
      `name: ${name}`,
      'target: process',
      'cycles: 5',
      'seed: 3',
      'standby: true',
      'checkpoint: { everyMs: 100 }',
      'kill: { phases: { work: 2, checkpoint: 1, restore: 0 }, workDelayMs: [100, 300] }',
    ].join('\n'),
  );
  return file;
};

/** Run `soak run` on a standby scenario; returns the journal's events and the parsed --json result. */
async function run(name: string, env: Record<string, string> = {}) {
  const out = path.join(tmp, name);
  const r = await execaNode(
    cliPath,
    ['run', '--scenario', scenario(name), '--out', out, '--report-dir', path.join(out, 'reports'), '--json'],
    { reject: false, timeout: 240_000, stdin: 'ignore', env: { CI: '1', ...env } },
  );
  const runDir = path.join(
    out,
    readdirSync(out).find((d) => d !== 'latest' && d !== 'reports')!,
  );
  const events = readFileSync(path.join(runDir, 'journal.ndjson'), 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as JournalEvent);
  const json = JSON.parse(r.stdout) as { reportDir: string; summary: { standby?: boolean } };
  return { r, events, json };
}

describe('soak run with a warm standby (process target)', () => {
  it('hands every resume to a standby host, verifies each cycle, and says so in summary.json and summary.md', async () => {
    const { r, events, json } = await run('standby-ok');
    const cycles = events.filter((e): e is CycleEvent => e.type === 'cycle');
    expect(
      cycles.map((c) => c.outcome),
      describeResult(r),
    ).toEqual(['ok', 'ok', 'ok', 'ok', 'ok']);
    const starts = events.filter((e): e is HostStartEvent => e.type === 'host-start');
    // one boot, no cold restore host, and a standby started for each cycle (the last one is discarded at the end)
    expect(starts.filter((s) => s.mode === 'boot')).toHaveLength(1);
    expect(starts.filter((s) => s.mode === 'restore')).toHaveLength(0);
    expect(starts.filter((s) => s.mode === 'standby').length).toBeGreaterThanOrEqual(5);
    expect(json.summary.standby).toBe(true);
    expect(readFileSync(path.join(json.reportDir, 'summary.md'), 'utf8')).toContain('warm standby');
  }, 300_000);

  it('negative control: a standby that skips the restore is caught by the nonce check in every cycle', async () => {
    const { r, events } = await run('standby-skips', { [STANDBY_SKIPS_RESTORE]: '1' });
    const cycles = events.filter((e): e is CycleEvent => e.type === 'cycle');
    expect(cycles.length, describeResult(r)).toBe(5);
    for (const c of cycles) {
      expect(c.outcome).toBe('fail');
      const codes = c.violations.map((v) => v.code);
      expect(codes).toContain('nonce');
      expect(codes).toContain('regressed'); // a fresh session at step ~0, behind the checkpoint it claims
    }
    expect(r.exitCode).toBe(1);
  }, 300_000);
});
