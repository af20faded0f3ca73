// The public target protocol end to end: the example adapter (plain Node, adapters/example/) soaked through the real
// CLI, real host processes and SIGKILLs; and its deliberately broken mode (restore boots fresh) caught by the checker.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { JournalEvent, ObservationEvent } from '../../../harness/journal/events.js';
import { describeResult, soakIn } from '../../helpers/cli.js';
import { repoRoot } from '../../helpers/paths.js';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'soak-exec-example-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const soak = soakIn(() => tmp, 300_000);
const adapter = path.join(repoRoot, 'adapters', 'example', 'adapter.mjs');

interface Summary {
  cycles: { total: number; resumed: number; failed: number };
  violations: number;
  environment: { target: Record<string, unknown> };
}

function scenario(name: string, extra: string): string {
  const file = path.join(tmp, `${name}.yaml`);
  writeFileSync(
    file,
    `name: ${name}\ntarget: exec\nadapter: ${adapter}\ncycles: 4\nstepMs: 5\ncheckpoint: { everyMs: 100 }\n` +
      `kill: { phases: { work: 1, checkpoint: 1, restore: 1 }, workDelayMs: [100, 300] }\n${extra}`,
  );
  return file;
}

function summaryOf(name: string): Summary {
  const dir = path.join(tmp, 'reports');
  const date = new Date().toISOString().slice(0, 10);
  return JSON.parse(readFileSync(path.join(dir, `${date}-${name}`, 'summary.json'), 'utf8')) as Summary;
}

describe('exec target: the example adapter over the public protocol', () => {
  it('resumes every cycle with no violation, and the report names the adapter', async () => {
    const r = await soak('run', '--scenario', scenario('exec-ok', ''));
    // the toy adapter's checkpoints barely dedup (~1.4x): gate 5 fails once 10 of them land in the 4 cycles, so the
    // verdict may be pass, fail or insufficient; a harness or input failure (3, 4) may not
    expect([0, 1, 2], describeResult(r)).toContain(r.exitCode);
    const s = summaryOf('exec-ok');
    expect(s.cycles, describeResult(r)).toMatchObject({ total: 4, resumed: 4, failed: 0 });
    expect(s.violations).toBe(0);
    expect(s.environment.target).toMatchObject({ kind: 'exec', adapter: 'adapter.mjs', protocolVersion: 1 });
    // every resume was timed from the restore request the adapter got to its first full heartbeat (the checker's
    // allowance for the steps a restored sandbox takes before it reports: the host cannot see when it began to run)
    const observed = readFileSync(path.join(tmp, 'runs', 'latest', 'journal.ndjson'), 'utf8')
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as JournalEvent)
      .filter((e): e is ObservationEvent => e.type === 'observation');
    expect(observed).toHaveLength(4);
    for (const o of observed) expect(o.ran).toEqual({ ms: expect.any(Number) as number, stepMs: 5 });
  });

  it('negative control: an adapter whose restore boots fresh fails every cycle on the nonce', async () => {
    const r = await soak('run', '--scenario', scenario('exec-broken', 'adapterOptions: { restoreBootsFresh: true }\n'));
    expect(r.exitCode, describeResult(r)).toBe(1);
    const s = summaryOf('exec-broken');
    expect(s.cycles.failed).toBe(4);
    expect(s.violations).toBeGreaterThan(0);
  });

  it('a scenario with target exec and no adapter is refused with a one-line reason (exit 3)', async () => {
    const file = path.join(tmp, 'no-adapter.yaml');
    writeFileSync(file, 'name: no-adapter\ntarget: exec\n');
    const r = await soak('run', '--scenario', file);
    expect(r.exitCode, describeResult(r)).toBe(3);
    expect(r.stderr).toContain('adapter');
  });
});
