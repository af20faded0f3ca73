// The fast path answers `soak --help`, `-h`, `--version` and a bare `soak` with exactly what yargs would print (its
// help text is generated from yargs: UPDATE_HELP=1 rewrites harness/commands/help-text.ts), and leaves the rest to yargs.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import * as prettier from 'prettier';
import { describe, expect, it } from 'vitest';
import { EXIT, InputError } from '../../harness/core/errors.js';
import { fastAnswer, helpWidth, soakVersion } from '../../harness/commands/fast-path.js';
import { HELP_TEXT } from '../../harness/commands/help-text.js';
import { listedVerb, soakParser } from '../../harness/commands/parser.js';
import { VERBS, type VerbName } from '../../harness/commands/verbs.js';
import { repoRoot } from '../helpers/paths.js';

const WIDTHS = [100, 110] as const;
const context = { abort: (code: number): never => expect.fail(`abort(${code})`) };

/** What yargs prints for `soak --help` at `width`, the verbs as the CLI lists them for a help request. */
async function yargsHelp(width: number, describe = (v: VerbName): string => VERBS[v].describe): Promise<string> {
  const verbs = (Object.keys(VERBS) as VerbName[]).map((v) => ({ ...listedVerb(v), describe: describe(v) }));
  return soakParser([], verbs, width, { code: EXIT.pass }, context).getHelp();
}

describe('the fast path of soak --help', () => {
  it('holds yargs own help text at each width it answers (UPDATE_HELP=1 rewrites help-text.ts)', async () => {
    const generated = Object.fromEntries(await Promise.all(WIDTHS.map(async (w) => [w, await yargsHelp(w)] as const)));
    if (process.env['UPDATE_HELP'] === '1') {
      const file = path.join(repoRoot, 'harness', 'commands', 'help-text.ts');
      const source = [
        '// Generated: `soak --help` as yargs prints it; UPDATE_HELP=1 npx vitest run test/commands/fast-path rewrites it.',
        '',
        '/** The top-level help text by wrap width (commands/fast-path.ts: 100 off a terminal, 110 on a wide one). */',
        'export const HELP_TEXT: Readonly<Partial<Record<number, string>>> = {',
        ...WIDTHS.map(
          (w) =>
            `  ${w}: [${generated[w]!.split('\n')
              .map((l) => JSON.stringify(l))
              .join(', ')}].join('\\n'),`,
        ),
        '};',
      ].join('\n');
      writeFileSync(file, await prettier.format(source, { ...(await prettier.resolveConfig(file)), filepath: file }));
    }
    for (const w of WIDTHS)
      expect(HELP_TEXT[w], `width ${w}: run UPDATE_HELP=1 npx vitest run test/commands/fast-path`).toBe(generated[w]);
  });

  it('answers --help and -h at those widths with that text, and --version with the package version', () => {
    for (const w of WIDTHS) {
      expect(fastAnswer(['--help'], w)).toEqual({ kind: 'print', text: `${HELP_TEXT[w]!}\n` });
      expect(fastAnswer(['-h'], w)).toEqual({ kind: 'print', text: `${HELP_TEXT[w]!}\n` });
    }
    expect(soakVersion()).toMatch(/^\d+\.\d+\.\d+/);
    expect(fastAnswer(['--version'], 100)).toEqual({ kind: 'print', text: `${soakVersion()}\n` });
  });

  it('reports a bare soak as the usage error yargs raises', async () => {
    const answer = fastAnswer([], 100);
    expect(answer?.kind).toBe('error');
    // yargs throws from inside parseAsync (its fail handler), before any promise exists
    const viaYargs = await (async () => soakParser([], [], 100, { code: EXIT.pass }, context).parseAsync())().then(
      () => null,
      (err: unknown) => err,
    );
    expect(viaYargs).toBeInstanceOf(InputError);
    expect(answer?.kind === 'error' && answer.error.message).toBe((viaYargs as InputError).message);
  });

  it('leaves every other command line, and other widths, to yargs', () => {
    for (const args of [['run'], ['--help', '--debug'], ['run', '--help'], ['--debug'], ['help'], ['--versions']])
      expect(fastAnswer(args, 100), args.join(' ')).toBeUndefined();
    expect(fastAnswer(['--help'], 80)).toBeUndefined();
  });

  it('wraps as yargs was told to: 100 off a terminal, the columns on one up to 110', () => {
    expect(helpWidth({ isTTY: false, columns: 200 })).toBe(100);
    expect(helpWidth({})).toBe(100);
    expect(helpWidth({ isTTY: true, columns: 80 })).toBe(80);
    expect(helpWidth({ isTTY: true, columns: 200 })).toBe(110);
  });

  it('would notice a drift: a changed description changes the help yargs prints (negative control)', async () => {
    const drifted = await yargsHelp(100, (v) => (v === 'merge' ? 'Combine run folders' : VERBS[v].describe));
    expect(drifted).not.toBe(HELP_TEXT[100]);
  });
});
