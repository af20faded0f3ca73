// End to end: the built `soak` answers --help, -h, --version and a bare `soak` without loading yargs (or any other
// package), with the text the source's yargs parser prints; `soak run --help` still goes through yargs.
import { execaNode } from 'execa';
import { describe, expect, it } from 'vitest';
import { soakVersion } from '../../harness/commands/fast-path.js';
import { HELP_TEXT } from '../../harness/commands/help-text.js';
import { cliPath, fixturePath } from '../helpers/paths.js';

/** `soak ...args` off a terminal, with every package module it loads listed on stderr as "import <url>". */
async function traced(...args: string[]): Promise<{ code: number; out: string; err: string; packages: string[] }> {
  const r = await execaNode(cliPath, args, {
    nodeOptions: ['--import', fixturePath('import-trace', 'register.mjs')],
    reject: false,
    timeout: 60_000,
    stdin: 'ignore',
    stripFinalNewline: false,
  });
  const lines = r.stderr.split('\n');
  return {
    code: r.exitCode ?? -1,
    out: r.stdout,
    err: lines.filter((l) => !l.startsWith('import ')).join('\n'),
    packages: lines.filter((l) => l.startsWith('import ')),
  };
}

describe('soak --help, --version and a bare soak (fast path)', () => {
  it('print what yargs prints at width 100 (off a terminal), loading no package', async () => {
    for (const flag of ['--help', '-h']) {
      const r = await traced(flag);
      expect(r.code, JSON.stringify(r)).toBe(0);
      expect(r.out).toBe(`${HELP_TEXT[100]!}\n`);
      expect(r.packages).toEqual([]);
    }
    const v = await traced('--version');
    expect([v.code, v.out, v.packages]).toEqual([0, `${soakVersion()}\n`, []]);
  });

  it('a bare soak is the usage error, exit 3', async () => {
    const r = await traced();
    expect([r.code, r.err, r.packages]).toEqual([
      3,
      'soak: pass a command, e.g. "soak run"\nRun "soak --help" for usage.\n',
      [],
    ]);
  });

  it('the import trace sees yargs when it is loaded (negative control): soak run --help', async () => {
    const r = await traced('run', '--help');
    expect(r.code, JSON.stringify(r)).toBe(0);
    expect(r.out).toContain('soak run');
    expect(r.packages.some((p) => p.includes('/node_modules/yargs/'))).toBe(true);
  });
});
