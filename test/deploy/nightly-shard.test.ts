// nightly.sh shard never counts a crash as a run (issue 32): a soak that is not built, does not answer
// --capabilities --json, lacks a feature the script uses, crashes (Node's own exit 1), or exits 0 without journaling a
// cycle makes the shard fail loudly, naming why on stderr and in the job summary. Stand-in soaks (scripts given as
// SOAK) answer --capabilities through the real CLI unless told otherwise; the shard that really runs is
// test/deploy/workflow-run.test.ts's.
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { FEATURES } from '../../harness/commands/capabilities.js';
import { cliPath, repoRoot } from '../helpers/paths.js';

const script = path.join(repoRoot, 'deploy', 'nightly', 'nightly.sh');
const tmp = mkdtempSync(path.join(os.tmpdir(), 'soak-nightly-shard-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** A stand-in soak: `capabilities` is what it does for --capabilities, `run` what it does for anything else. */
function fakeSoak(name: string, run: string, capabilities = `exec node ${cliPath} "$@"`): string {
  const file = path.join(tmp, `${name}.sh`);
  writeFileSync(file, `#!/usr/bin/env bash\nif [[ $1 == --capabilities ]]; then ${capabilities}; fi\n${run}\n`);
  chmodSync(file, 0o755);
  return file;
}

/** `nightly.sh shard 0` (of 2) with `env`, in its own data folder; its result and job summary. */
async function shard(name: string, env: Record<string, string>, nightly = script) {
  const data = path.join(tmp, name);
  const summary = path.join(tmp, `${name}.md`);
  writeFileSync(summary, '');
  const r = await execa(nightly, ['shard', '0'], {
    env: {
      NIGHT_KEY: '2026-11-30',
      SHARDS: '2',
      CYCLES: '2',
      NIGHTLY_DATA: data,
      GITHUB_STEP_SUMMARY: summary,
      ...env,
    },
    reject: false,
    timeout: 120_000,
    stdin: 'ignore',
  });
  const done = path.join(data, 'nights', '2026-11-30', 'shard-0', 'done');
  return {
    r,
    summary: readFileSync(summary, 'utf8'),
    done: existsSync(done) ? readFileSync(done, 'utf8').trim() : null,
  };
}

describe('nightly.sh shard refuses what did not run', () => {
  it('asks only for features soak --capabilities lists (harness/commands/capabilities.ts)', () => {
    const needs = /^NEEDS=\(([^)]*)\)/m.exec(readFileSync(script, 'utf8'))![1]!;
    const listed = [...needs.matchAll(/'([^']+)'|([\w-]+)/g)].map((m) => m[1] ?? m[2]!);
    expect(listed.length).toBeGreaterThanOrEqual(10);
    expect(listed.filter((f) => !(FEATURES as readonly string[]).includes(f))).toEqual([]);
  });

  it('exit 0 with no cycle journaled is a failed shard (exit 4), named in the summary', async () => {
    const { r, summary, done } = await shard('silent', { SOAK: fakeSoak('silent', 'exit 0') });
    expect(r.exitCode, r.stderr).toBe(4);
    expect(done).toBe('4');
    expect(r.stderr).toMatch(/shard 0\/2 of 2026-11-30 FAILED, exit 4, 0 cycles: soak exited 0 but its journal holds/);
    expect(summary).toMatch(/shard 0\/2 of 2026-11-30 failed \(exit 4, 0 cycles\)/);
  });

  it("a run that crashes (Node's own exit 1) is a failed shard, never counted as ran", async () => {
    const crash = fakeSoak('crash', `exec node -e 'throw new Error("boom")'`);
    const { r, done } = await shard('crash', { SOAK: crash });
    expect(r.exitCode).toBe(1);
    expect(done).toBe('1');
    expect(r.stderr).toMatch(/FAILED, exit 1, 0 cycles: soak exited 1: Error: boom/);
  });

  it('a soak that does not answer --capabilities, or lacks a feature, stops before running: exit 3', async () => {
    const old = await shard('old', { SOAK: `node ${path.join(tmp, 'no-such-cli.js')}` });
    expect(old.r.exitCode).toBe(3);
    expect(old.r.stderr).toMatch(
      /--capabilities --json' exited 1 \(a CLI too old for this script, or not runnable\): Error: Cannot find module/,
    );
    const json = JSON.stringify({ schemaVersion: 1, features: ['run --shard', 'merge'] });
    const lacking = fakeSoak('lacking', 'exit 0', `echo '${json}'; exit 0`);
    const l = await shard('lacking', { SOAK: lacking });
    expect(l.r.exitCode).toBe(3);
    expect(l.r.stderr).toMatch(/lacks what this script uses: run --seed-from, run --no-judge, .*gates --summary-md/);
    expect(l.done).toBeNull(); // nothing ran, no done marker: finish names the shard too
  });

  it('a checkout that was never built stops with what to do: exit 3', async () => {
    const checkout = path.join(tmp, 'unbuilt');
    mkdirSync(path.join(checkout, 'deploy'), { recursive: true });
    cpSync(path.join(repoRoot, 'deploy', 'nightly'), path.join(checkout, 'deploy', 'nightly'), { recursive: true });
    const { r, summary } = await shard('unbuilt', {}, path.join(checkout, 'deploy', 'nightly', 'nightly.sh'));
    expect(r.exitCode).toBe(3);
    expect(r.stderr).toMatch(/dist\/harness\/cli\.js is missing: build it \(npm ci && npm run build\)/);
    expect(summary).toMatch(/soak is not built/);
  });

  it('negative control: a stand-in soak that journals a cycle is a shard that ran (exit 0)', async () => {
    const journal = (type: string): string => JSON.stringify({ schemaVersion: 1, t: 0, type });
    const ran = fakeSoak(
      'ran',
      [
        'out=$(for a in "$@"; do [[ $prev == --out ]] && echo "$a"; prev=$a; done)',
        'mkdir -p "$out/run-a" && ln -s run-a "$out/latest"',
        `printf '%s\\n%s\\n' '${journal('run-start')}' '${journal('cycle')}' > "$out/run-a/journal.ndjson"`,
      ].join('\n'),
    );
    const { r, done } = await shard('ran', { SOAK: ran });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(done).toBe('0');
    expect(r.stderr).toMatch(/shard 0\/2 of 2026-11-30 ran 1 cycles/);
  });
});
