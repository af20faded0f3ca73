// `soak merge` of one run twice exits 3 and writes nothing (issue 13, finding 8): the same folder by relative and
// absolute path, through the `latest` symlink, or as a copy (same run id); two distinct runs still merge (exit 0).
import { cpSync, existsSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { fixturePath } from '../helpers/paths.js';
import { soakIn } from '../helpers/cli.js';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'soak-trust-merge-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const runs = path.join(tmp, 'runs');
const run = path.join(runs, '20261201T025632-default-s3');
cpSync(fixturePath('journals', 'process-default'), run, { recursive: true });
symlinkSync(path.basename(run), path.join(runs, 'latest'));

const soak = soakIn(() => tmp, 120_000);

describe('soak merge refuses one run twice', () => {
  it.each([
    ['relative and absolute path', ['runs/20261201T025632-default-s3', run]],
    ['the latest symlink and the folder', [path.join(runs, 'latest'), run]],
  ])('%s: exit 3, both folders named, no output folder', async (_name, dirs) => {
    const out = path.join(tmp, `merged-${readdirSync(tmp).length}`);
    const r = await soak('merge', ...dirs, '--out', out);
    expect(r.exitCode, String(r.stderr)).toBe(3);
    expect(String(r.stderr)).toContain(`${path.resolve(tmp, dirs[0]!)} and ${path.resolve(tmp, dirs[1]!)}`);
    expect(String(r.stderr)).toContain('same run folder');
    expect(existsSync(out)).toBe(false);
    expect(readdirSync(tmp).filter((f) => f.includes('.merging-'))).toEqual([]);
  });

  it('a copy of the run (same run id) is refused; another run merges', async () => {
    const copy = path.join(tmp, 'copy');
    cpSync(run, copy, { recursive: true });
    const r = await soak('merge', run, copy, '--out', path.join(tmp, 'merged-copy'));
    expect(r.exitCode, String(r.stderr)).toBe(3);
    expect(String(r.stderr)).toContain(`${run} and ${copy} both hold run 20261201T025632-default-s3`);
    const ok = await soak('merge', run, fixturePath('journals', 'process-resumed'), '--out', path.join(tmp, 'm2'));
    expect(ok.exitCode, String(ok.stderr)).toBe(0);
  });
});
