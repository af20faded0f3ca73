// Out-of-bounds input through the real CLI (issue 30): each a one-line usage or config error, exit 3, naming the file,
// field or flag, before any work starts. Before: a scenario FIFO hung `soak run`, `resumeTimeoutMs: 1e12` overflowed
// setTimeout and ended the run with exit 4, `--port 99999` was a RangeError (exit 4), an adapter path to /dev/zero
// failed to spawn (exit 4). Negative controls: the same verbs with values at their bounds run.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execaNode } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { EXIT } from '../../harness/core/errors.js';
import { describeResult, soakIn } from '../helpers/cli.js';
import { cliPath, fixturePath } from '../helpers/paths.js';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'soak-bounds-cli-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const soak = soakIn(() => tmp, 120_000);
const RUN = fixturePath('journals', 'process-default');

/** The run's stderr (execa drops its last newline): one `soak: ...` line, plus a scenario's lines naming each field. */
async function refused(args: string[]): Promise<string> {
  const r = await soak(...args);
  expect(r.exitCode, describeResult(r)).toBe(EXIT.badInput);
  expect(r.stdout, describeResult(r)).toBe('');
  expect(r.stderr).toMatch(/^soak: /);
  expect(r.stderr).not.toMatch(/internal error|\n\s+at /);
  return r.stderr;
}

describe.concurrent('out-of-bounds input is refused with exit 3', () => {
  it('soak run: a scenario that is a FIFO (no hang), or /dev/zero', async () => {
    const fifo = path.join(tmp, 'fifo.yaml');
    execFileSync('mkfifo', [fifo], { timeout: 10_000 });
    expect(await refused(['run', '--scenario', fifo, '--out', 'runs'])).toBe(
      `soak: scenario ${fifo} is a FIFO, not a regular file: pass a .yaml file`,
    );
    expect(await refused(['run', '--scenario', '/dev/zero', '--out', 'runs'])).toMatch(
      /^soak: scenario \/dev\/zero is a device/,
    );
  });

  it('soak run: resumeTimeoutMs: 1e12 and --budget-s 1e12, each named, nothing run', async () => {
    const file = path.join(tmp, 'timer.yaml');
    writeFileSync(file, 'name: timer\ncycles: 1\nresumeTimeoutMs: 1e12\n');
    const err = await refused(['run', '--scenario', file, '--out', 'runs', '--budget-s', '1e12']);
    expect(err.split('\n')).toContain(`  ${file}: resumeTimeoutMs: must be at most 3600000 ms (1 h)`);
    expect(err.split('\n')).toContain('  --budget-s (overrides budgetS): must be at most 2073600 s (24 d)');
    expect(existsSync(path.join(tmp, 'runs'))).toBe(false);
  });

  it('soak watch --port 99999 and soak demo --port 99999 (before it boots anything)', async () => {
    expect(await refused(['watch', RUN, '--port', '99999'])).toBe(
      'soak: --port: expected a whole number from 0 to 65535 (0: a random free port), got 99999',
    );
    expect(await refused(['demo', '--port', '99999', '--out', 'demo-runs'])).toMatch(/^soak: --port: /);
    expect(existsSync(path.join(tmp, 'demo-runs'))).toBe(false);
  });

  it('soak demo --sessions out of 1..16, or with a scenario that runs one session only (before it boots anything)', async () => {
    for (const n of ['0', '17', '2.5'])
      expect(await refused(['demo', '--sessions', n, '--out', 'demo-runs'])).toBe(
        `soak: --sessions: expected a whole number from 1 to 16, got ${n}`,
      );
    expect(await refused(['demo', '--sessions', '2', '--scenario', 'effects', '--out', 'demo-runs'])).toMatch(
      /^soak: scenario \S+effects\.yaml: sessions: 2: effects run with one session only$/,
    );
    expect(existsSync(path.join(tmp, 'demo-runs'))).toBe(false);
  });

  it('soak compare --resamples 1e12, soak target check /dev/zero', async () => {
    expect(await refused(['compare', RUN, RUN, '--resamples', '1e12'])).toMatch(/^soak: --resamples: expected a whole/);
    expect(await refused(['target', 'check', '/dev/zero'])).toMatch(/adapter: \/dev\/zero is not a regular file/);
  });
});

describe.concurrent('negative controls: values at their bounds run', () => {
  it('soak run with resumeTimeoutMs at its bound runs its cycle', async () => {
    const file = path.join(tmp, 'at-bound.yaml');
    writeFileSync(file, 'name: at-bound\ncycles: 1\nresumeTimeoutMs: 3600000\n');
    const r = await soak(
      'run',
      '--scenario',
      file,
      '--out',
      'ok-runs',
      '--no-report',
      '--no-judge',
      '--budget-s',
      '2073600',
    );
    expect(r.exitCode, describeResult(r)).toBe(EXIT.pass);
    expect(r.stdout).toMatch(/1 cycles run now/);
  });

  it('soak watch --port 0 serves, and ends on SIGTERM', async () => {
    const w = execaNode(cliPath, ['watch', RUN, '--port', '0'], { cwd: tmp, reject: false, env: { CI: '1' } });
    let out = '';
    await new Promise<void>((resolve, reject) => {
      w.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        if (/^open: http:\S+$/m.test(out)) resolve();
      });
      void w.then((r) => reject(new Error(`soak watch ended before serving\n${describeResult(r)}`)));
    });
    w.kill('SIGTERM');
    const r = await w;
    expect(r.exitCode, describeResult(r)).toBe(EXIT.pass);
  });
});
