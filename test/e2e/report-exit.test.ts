// End to end: `soak report` exits with its verdict's code (never 0 beside "verdict: FAIL"), and terminal tables carry
// no bidirectional control characters from a gate file.
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixturePath, repoRoot } from '../helpers/paths.js';
import { describeResult, soakIn } from '../helpers/cli.js';

let tmp: string;

const soak = soakIn(() => tmp, 120_000);
const out = describeResult;

beforeAll(() => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'soak-report-exit-'));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('soak report exit code', () => {
  it('a FAIL report exits 1, an insufficient one 2, both after writing the report', async () => {
    const fail = await soak('report', fixturePath('journals', 'process-default'), '--out', 'reports-fail');
    expect(fail.stdout, out(fail)).toMatch(/^verdict: FAIL \(/m);
    expect(fail.exitCode, out(fail)).toBe(1);
    const short = await soak('report', fixturePath('journals', 'process-torn-checkpoint'), '--out', 'reports-short');
    expect(short.stdout, out(short)).toMatch(/^verdict: INSUFFICIENT DATA \(/m);
    expect(short.exitCode, out(short)).toBe(2);
    const written = /^report: (.+)$/m.exec(short.stdout)?.[1];
    expect(readFileSync(written!, 'utf8')).toContain('<h2 id="gates">Gates</h2>');
  });

  it('the gates table on a terminal neutralises bidi controls in a gate title', async () => {
    const gatesDir = path.join(tmp, 'gates-bidi');
    cpSync(path.join(repoRoot, 'gates'), gatesDir, { recursive: true });
    const file = path.join(gatesDir, '02-checkpoint-atomicity.yaml');
    writeFileSync(
      file,
      readFileSync(file, 'utf8').replace('title: Checkpoint atomicity', 'title: "Checkpoint \u202Eatomicity"'),
    );
    const g = await soak('gates', fixturePath('journals', 'process-default'), '--gates-dir', gatesDir);
    expect(g.exitCode, out(g)).toBe(1);
    expect(g.stdout).toContain('Checkpoint [U+202E]atomicity');
    expect(g.stdout).not.toMatch(/[\u202A-\u202E\u2066-\u2069\u200E\u200F\u061C]/);
  });
});
