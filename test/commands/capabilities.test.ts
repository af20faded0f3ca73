// `soak --capabilities --json` (what deploy/nightly/nightly.sh asks instead of grepping help text): it validates
// against schemas/capabilities.schema.json, and every feature it lists is an option the named verb really takes (read
// from that verb's own --help, so a listed feature the CLI lost fails here); a planted missing feature is caught.
import { describe, expect, it } from 'vitest';
import { capabilities, FEATURES } from '../../harness/commands/capabilities.js';
import { soakVersion } from '../../harness/commands/fast-path.js';
import { describeResult, runSoak } from '../helpers/cli.js';

/** The features in `features` that `soak <verb> --help` does not list as an option (or whose verb does not exist). */
async function missing(features: readonly string[]): Promise<string[]> {
  const verbs = [...new Set(features.map((f) => f.split(' ')[0]!))];
  const help = new Map<string, { code: number | undefined; text: string }>();
  await Promise.all(
    verbs.map(async (v) => {
      const r = await runSoak([v, '--help'], { timeoutMs: 60_000 });
      help.set(v, { code: r.exitCode, text: r.stdout });
    }),
  );
  return features.filter((f) => {
    const [verb, option] = f.split(' ') as [string, string | undefined];
    const h = help.get(verb)!;
    // an unknown verb gets the top-level help (exit 0): the verb's own help starts with its usage line
    if (h.code !== 0 || !h.text.startsWith(`soak ${verb}`)) return true;
    // yargs lists a boolean once, as --x; --no-x is its negation
    const listed = option?.replace(/^--no-/, '--');
    return listed !== undefined && !new RegExp(`^\\s+${listed}(\\s|$)`, 'm').test(h.text);
  });
}

describe('soak --capabilities', () => {
  it('--json answers the version and features, valid against its schema (runSoak validates it)', async () => {
    const r = await runSoak(['--capabilities', '--json'], { timeoutMs: 60_000 });
    expect(r.exitCode, describeResult(r)).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual(capabilities(soakVersion()));
    const plain = await runSoak(['--capabilities'], { timeoutMs: 60_000 });
    expect(plain.stdout.split('\n')[0]).toBe(`keepstate-soak ${soakVersion()}`);
  });

  it('every listed feature is an option its verb takes', async () => {
    expect(await missing(FEATURES)).toEqual([]);
  });

  it('negative control: a feature the CLI lacks, or a verb it does not have, is caught', async () => {
    expect(await missing(['run --no-such-flag', 'judge', 'gates --json'])).toEqual(['run --no-such-flag', 'judge']);
  });

  it('with anything else on the line it is not answered on the fast path (a verb refuses it: exit 3)', async () => {
    const r = await runSoak(['gates', 'x', '--capabilities'], { timeoutMs: 60_000 });
    expect(r.exitCode).toBe(3);
    expect(r.stderr).toMatch(/Unknown argument: capabilities/);
  });
});
