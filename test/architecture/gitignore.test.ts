// What soak writes in a checkout by default stays out of git (issue 32): reports/ (`soak run`, `soak report`),
// runs/ (`--out`) and nightly/ (the README's nightly dry run) are ignored, and nothing tracked lives there; the
// pipeline's own deploy/nightly/ is not caught by the rule. (No path through runs/latest: in a checkout where soak ran,
// it is a symlink, and git check-ignore refuses a path beyond one.)
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/paths.js';

/** The paths git ignores among `paths` (git check-ignore, which reads .gitignore without touching the tree). */
async function ignored(paths: string[]): Promise<string[]> {
  const r = await execa('git', ['check-ignore', '--no-index', ...paths], { cwd: repoRoot, reject: false });
  return r.stdout.split('\n').filter((l) => l !== '');
}

describe('.gitignore', () => {
  it('ignores the default output folders, and no tracked file lives in them', async () => {
    const outputs = [
      'reports/2026-12-01-default/summary.json',
      'runs/20261201T000000-default-s1/journal.ndjson',
      'nightly/nights/x/done',
    ];
    expect(await ignored(outputs)).toEqual(outputs);
    const tracked = await execa('git', ['ls-files', 'reports', 'runs', 'nightly'], { cwd: repoRoot });
    expect(tracked.stdout).toBe('');
  });

  it('negative control: tracked sources beside them are not ignored (deploy/nightly/, harness/report/)', async () => {
    expect(
      await ignored(['deploy/nightly/nightly.sh', 'harness/report/write.ts', 'test/report/write.test.ts']),
    ).toEqual([]);
  });
});
