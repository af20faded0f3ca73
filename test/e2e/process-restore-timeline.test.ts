// The process target's restore steps in the host's restore timeline (hosts.log): the workspace written and swapped in,
// the memory written, the agent started, in that order, between restoreBegin and restoreEnd; bench/effects-ledger and
// bench/restore-timeline read them to say where a restore's time goes.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readTimelines } from '../../bench/restore-timeline.js';
import { describeResult, soakRunJson, writeScenario } from '../helpers/cli.js';
import { cliPath } from '../helpers/paths.js';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'soak-process-timeline-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
if (!existsSync(cliPath)) throw new Error(`${cliPath} is missing: build first (npm run build)`);

describe('process target restore timeline', () => {
  it("each restore's timeline has the process target's steps, in order, inside the restore", async () => {
    const file = writeScenario(tmp, 'timeline', [
      'target: process',
      'seed: 3',
      'cycles: 3',
      'bootSamples: 0',
      'checkpoint: { everyMs: 100 }',
      'kill: { phases: { work: 1, checkpoint: 0, restore: 0 }, workDelayMs: [150, 250] }',
    ]);
    const out = await soakRunJson<unknown>(file, path.join(tmp, 'runs'), 300_000);
    const timelines = readTimelines(path.join(tmp, 'runs'));
    // a host writes its timeline after its first full heartbeat; the runner may stop the last one before it has
    expect(timelines.length, describeResult(out.r)).toBeGreaterThanOrEqual(2);
    expect(timelines.length, describeResult(out.r)).toBeLessThanOrEqual(3);
    const order = [
      'restoreBegin',
      'workspaceWritten',
      'workspaceSwapped',
      'memoryWritten',
      'agentStarted',
      'restoreEnd',
    ];
    for (const t of timelines) {
      const at = order.map((k) => t.marks[k]);
      expect(
        at.every((v) => typeof v === 'number'),
        JSON.stringify(t.marks),
      ).toBe(true);
      for (let i = 1; i < at.length; i++) expect(at[i]!, JSON.stringify(t.marks)).toBeGreaterThanOrEqual(at[i - 1]!);
    }
  }, 300_000);
});
