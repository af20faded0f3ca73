// `soak merge` of one run twice exits 3 and writes nothing (issue 13, finding 8): the same folder by relative and
// absolute path, through the `latest` symlink, or as a copy (same run id); two distinct runs still merge (exit 0).
// Two unsharded runs of one seed (issue 30) are refused the same way; `--force` merges them, and the merged run-start,
// summary.json and the report's first line say so.
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
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
    expect(r.exitCode, r.stderr).toBe(3);
    expect(r.stderr).toContain(`${path.resolve(tmp, dirs[0]!)} and ${path.resolve(tmp, dirs[1]!)}`);
    expect(r.stderr).toContain('same run folder');
    expect(existsSync(out)).toBe(false);
    expect(readdirSync(tmp).filter((f) => f.includes('.tmp-'))).toEqual([]);
  });

  it('a copy of the run (same run id) is refused; another run merges', async () => {
    const copy = path.join(tmp, 'copy');
    cpSync(run, copy, { recursive: true });
    const r = await soak('merge', run, copy, '--out', path.join(tmp, 'merged-copy'));
    expect(r.exitCode, r.stderr).toBe(3);
    expect(r.stderr).toContain(`${run} and ${copy} both hold run 20261201T025632-default-s3`);
    const ok = await soak('merge', run, fixturePath('journals', 'process-resumed'), '--out', path.join(tmp, 'm2'));
    expect(ok.exitCode, ok.stderr).toBe(0);
  });
});

describe('soak report on real journals: provenance first, the saturated banner, the source shards', () => {
  it('a merge of two shards measured at load ~20 on 2 cores', async () => {
    const out = path.join(tmp, 'reports-merged');
    const r = await soak('report', fixturePath('journals', 'process-merged-sources'), '--out', out, '--json');
    expect([0, 1, 2], r.stderr).toContain(r.exitCode);
    const dir = (JSON.parse(r.stdout) as { dir: string }).dir;
    const md = readFileSync(path.join(dir, 'summary.md'), 'utf8').split('\n');
    expect(md[0]).toBe('**Run complete: 6 of 6 planned cycles, merged from 2 runs on one machine.**');
    expect(md[2]).toMatch(
      /^> \*\*Warning: Measured on a saturated machine: load average p50 19\.65 \(max [\d.]+\) on 2 cores/,
    );
    for (const shard of ['20261201T171955-default-s11-shard0of2', '20261201T172013-default-s11-shard1of2'])
      expect(
        md.find((l) => l.startsWith(`| ${shard} | AMD EPYC, 2 cores, kernel 6.18.44-fc-v1045 (\\#`)),
      ).toBeDefined();
    expect(md.join('\n')).not.toMatch(/one host/i);
  });

  it('an interrupted run says so, with planned vs run cycles, on its first line', async () => {
    const text = readFileSync(path.join(fixturePath('journals', 'process-saturated'), 'journal.ndjson'), 'utf8');
    const run = path.join(tmp, 'interrupted');
    mkdirSync(run);
    writeFileSync(path.join(run, 'journal.ndjson'), text.replace('"status":"complete"', '"status":"interrupted"'));
    const r = await soak('report', run, '--out', path.join(tmp, 'reports-interrupted'), '--json');
    const dir = (JSON.parse(r.stdout) as { dir: string }).dir;
    const md = readFileSync(path.join(dir, 'summary.md'), 'utf8');
    expect(md.split('\n')[0]).toBe('**Run interrupted after 3 of 3 planned cycles.**');
  });
});

describe('soak merge of two unsharded runs of one seed (two nights of a fixed-seed scenario)', () => {
  const night = (id: string): string => {
    const dir = path.join(tmp, id);
    mkdirSync(dir);
    const text = readFileSync(path.join(run, 'journal.ndjson'), 'utf8');
    writeFileSync(
      path.join(dir, 'journal.ndjson'),
      text.replace('"runId":"20261201T025632-default-s3"', `"runId":"${id}"`),
    );
    return dir;
  };

  it('is refused (exit 3, one line saying why); --force merges it and the report says so first', async () => {
    const [a, b] = [night('night-a'), night('night-b')];
    const refused = await soak('merge', a, b, '--out', path.join(tmp, 'nights'));
    expect(refused.exitCode, refused.stderr).toBe(3);
    const line = refused.stderr.trim();
    expect(line.split('\n')).toHaveLength(1);
    expect(line).toContain(
      `${a} and ${b} are both runs of scenario default (target process) with seed 3 with no shard split and both ran cycle 1 (and 5 more)`,
    );
    expect(line).toContain('--force');
    expect(existsSync(path.join(tmp, 'nights'))).toBe(false);

    const forced = await soak('merge', a, b, '--out', path.join(tmp, 'nights'), '--force', '--json');
    expect(forced.exitCode, forced.stderr).toBe(0);
    expect(forced.stderr).toContain('soak: merge --force: runs night-a and night-b are both runs of scenario default');
    const why = (JSON.parse(forced.stdout) as { cycles: number; forcedOverlap: string[] }).forcedOverlap;
    expect(why).toHaveLength(1);
    const start = JSON.parse(readFileSync(path.join(tmp, 'nights', 'journal.ndjson'), 'utf8').split('\n')[0]!) as {
      forcedOverlap?: string[];
    };
    expect(start.forcedOverlap).toEqual(why);
    const r = await soak('report', path.join(tmp, 'nights'), '--out', path.join(tmp, 'reports-nights'), '--json');
    expect([0, 1, 2], r.stderr).toContain(r.exitCode);
    const dir = (JSON.parse(r.stdout) as { dir: string }).dir;
    const first = readFileSync(path.join(dir, 'summary.md'), 'utf8').split('\n')[0]!;
    expect(first).toContain('Run complete: 12 of 12 planned cycles, merged from 2 runs on one machine.');
    expect(first).toContain('Merged with --force although its sources overlap (runs night-a and night-b are both runs');
    expect(first).toContain('the same cycles may be counted twice');
    const summary = JSON.parse(readFileSync(path.join(dir, 'summary.json'), 'utf8')) as { forcedOverlap?: string[] };
    expect(summary.forcedOverlap).toEqual(why);
    expect(readFileSync(path.join(dir, 'index.html'), 'utf8')).toContain(
      'Merged with --force although its sources overlap',
    );
  });
});
