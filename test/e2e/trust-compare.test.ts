// `soak compare` warns when its two sides are the same run or were not measured alike (issue 13, finding 10): stderr
// lines `soak: warning: ...` and a `warnings` array in --json; two distinct runs measured alike give none.
import { mkdtempSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Result } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { fixtureText, scratchRunFolders } from '../helpers/journals.js';
import { runSoak } from '../helpers/cli.js';
import { fixturePath } from '../helpers/paths.js';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'soak-trust-compare-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const scratch = scratchRunFolders('soak-trust-compare-runs-');
const runA = realpathSync(fixturePath('journals', 'process-default'));
const RUN_ID = '20261201T025632-default-s3';

async function compare(a: string, b: string, ...more: string[]): Promise<Result> {
  return runSoak(['compare', a, b, ...more], { cwd: tmp, timeoutMs: 120_000 });
}
const warningLines = (r: Result): string[] =>
  String(r.stderr)
    .split('\n')
    .filter((l) => l.startsWith('soak: warning: '));

describe('soak compare provenance warnings', () => {
  it('a run compared with itself through a symlink: warned on stderr and in --json', async () => {
    const latest = path.join(tmp, 'latest');
    symlinkSync(runA, latest);
    const r = await compare(runA, latest, '--json');
    expect([0, 2], String(r.stderr)).toContain(r.exitCode);
    const want = `both sides are the same run (${RUN_ID}, folder ${runA}): comparing a run with itself finds no change`;
    expect(warningLines(r)).toEqual([`soak: warning: ${want}`]);
    expect((JSON.parse(String(r.stdout)) as { warnings: string[] }).warnings).toEqual([want]);
  });

  it('runs of other seeds and sizes: one warning per difference', async () => {
    const r = await compare(runA, fixturePath('journals', 'process-resumed'));
    expect(warningLines(r)).toEqual([
      'soak: warning: A and B differ in seed: 3 vs 5 (not measured alike)',
      'soak: warning: A and B differ in cycle count: 6 vs 40 (not measured alike)',
    ]);
  });

  it('a saturated run against the same run measured quiet: a load warning, both environments side by side', async () => {
    const saturated = realpathSync(fixturePath('journals', 'process-saturated'));
    const text = fixtureText('process-saturated');
    const quietText = text
      .replace(/"load1":[0-9.]+/g, '"load1":0.4')
      .replace(/"runId":"([^"]+)"/, '"runId":"$1-quiet"');
    const quiet = scratch(quietText);
    const r = await compare(quiet, saturated);
    expect(warningLines(r)).toEqual([
      "soak: warning: A and B differ in machine load: load p50 0.4 on 2 cores vs load p50 19.65 on 2 cores, saturated (latency differences may be the machine's, not the system's)",
    ]);
    const out = String(r.stdout);
    expect(out).toMatch(/^load average +p50 0\.4 \(max 0\.4\) +p50 19\.65 \(max 19\.93\) SATURATED$/m);
    expect(out).toMatch(/^kernel +6\.18\.44-fc-v1045 +6\.18\.44-fc-v1045$/m);
    expect(out).toMatch(/^cycles +3 of 3 \(complete\) +3 of 3 \(complete\)$/m);
    const same = await compare(quiet, scratch(quietText.replace('-quiet"', '-quiet2"')));
    expect(warningLines(same)).toEqual([]); // the negative control: alike in load too
  });

  it('two distinct runs measured alike: no warning (negative control)', async () => {
    const twin = scratch(fixtureText('process-default').replace(RUN_ID, `${RUN_ID}-twin`));
    const r = await compare(runA, twin, '--json');
    expect(warningLines(r)).toEqual([]);
    expect((JSON.parse(String(r.stdout)) as { warnings: string[] }).warnings).toEqual([]);
  });
});
