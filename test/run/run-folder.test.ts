// Run folders: the id format (UTC stamp, 40-char ASCII slug, seed, shard), a new folder per run (never reused), and
// the `latest` link following the newest.
import { mkdtempSync, readlinkSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createRunFolder, runId } from '../../harness/run/run-folder.js';

const at = new Date('2025-03-04T05:06:07.890Z');
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('runId', () => {
  it('stamps UTC time, slugs the scenario name and names the seed and shard', () => {
    expect(runId({ name: 'Nightly Soak', seed: 7 }, undefined, at)).toBe('20250304T050607-nightly-soak-s7');
    expect(runId({ name: 'x', seed: 1 }, { index: 2, count: 4 }, at)).toBe('20250304T050607-x-s1-shard2of4');
  });

  it('folds accents and caps the name at 40 characters without a trailing dash', () => {
    const id = runId({ name: `Épreuve ${'a'.repeat(30)} fin de nuit`, seed: 3 }, undefined, at);
    const name = id.slice('20250304T050607-'.length, id.lastIndexOf('-s3'));
    expect(name).toBe(`epreuve-${'a'.repeat(30)}-f`);
    expect(name.length).toBeLessThanOrEqual(40);
    expect(runId({ name: '***', seed: 3 }, undefined, at)).toBe('20250304T050607-scenario-s3');
  });
});

describe('createRunFolder', () => {
  it('never reuses a folder (suffix -2, -3) and points latest at the newest', () => {
    const runs = mkdtempSync(path.join(os.tmpdir(), 'soak-run-folder-'));
    dirs.push(runs);
    const scenario = { name: 'same', seed: 1 };
    const a = createRunFolder(runs, scenario, undefined, at);
    const b = createRunFolder(runs, scenario, undefined, at);
    const c = createRunFolder(runs, scenario, undefined, at);
    expect([a.id, b.id, c.id]).toEqual([
      '20250304T050607-same-s1',
      '20250304T050607-same-s1-2',
      '20250304T050607-same-s1-3',
    ]);
    for (const r of [a, b, c]) expect(statSync(r.paths.dir).isDirectory()).toBe(true);
    expect(readlinkSync(path.join(runs, 'latest'))).toBe(c.id);
    expect(c.paths.journal).toBe(path.join(runs, c.id, 'journal.ndjson'));
  });
});
