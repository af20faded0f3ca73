// `soak image agent --out DIR`: the static workload agent as a standalone binary, run here the way a user's sandbox
// would (stdio console): its full heartbeat is what the checker's model says step N must look like (docs/workload.md).
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, describe, expect, it } from 'vitest';
import { WorkloadModel } from '../../../harness/check/workload.js';
import { describeResult, soakIn } from '../../helpers/cli.js';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'soak-agent-build-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const soak = soakIn(() => tmp, 180_000);

/** Start the agent on a stdio console; the first `HBF` line after `steps` steps, asked for with `F`. */
async function fullHeartbeatAfter(bin: string, steps: number): Promise<string[]> {
  const work = mkdtempSync(path.join(tmp, 'ws-'));
  const agent = spawn(bin, [work, '5', '-'], { stdio: ['pipe', 'pipe', 'inherit'] });
  try {
    const lines = createInterface({ input: agent.stdout });
    let asked = false;
    for await (const line of lines) {
      const f = line.split(' ');
      if (f[0] === 'HB' && Number(f[1]) >= steps && !asked) {
        asked = true;
        agent.stdin.write('F');
      } else if (f[0] === 'HBF' && asked) return f;
    }
    throw new Error('the agent ended without a full heartbeat');
  } finally {
    agent.kill('SIGKILL');
  }
}

describe('soak image agent', () => {
  it('builds one static binary whose heartbeats match the checker model', async () => {
    const out = path.join(tmp, 'build');
    const r = await soak('image', 'agent', '--out', out);
    expect(r.exitCode, describeResult(r)).toBe(0);
    const bin = path.join(out, 'soak-agent');
    expect(r.stdout).toMatch(/soak-agent \(\d+ bytes, sha256 [0-9a-f]{64}/);
    expect(execFileSync('file', ['-b', bin], { encoding: 'utf8' })).toMatch(/statically linked/);

    const [, step, nonce, fsStep, fsDigest, memStep, memDigest, toolStep, toolDigest] = await fullHeartbeatAfter(
      bin,
      3,
    );
    const n = Number(step);
    const want = new WorkloadModel().expected(n);
    expect(nonce).toMatch(/^[0-9a-f]{16}$/);
    expect([fsStep, memStep, toolStep].map(Number)).toEqual([n, n, n]);
    expect({ fs: fsDigest, mem: memDigest, tool: toolDigest }).toEqual(want);
    // negative control: the model of another step does not match
    expect(new WorkloadModel().expected(n + 1).mem).not.toBe(memDigest);
  }, 200_000);
});
