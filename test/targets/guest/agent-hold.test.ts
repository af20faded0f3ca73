// The static C agent's hold (docs/workload.md): after 'H' it acknowledges `HOLD <step>` and takes no step until 'R', 'F'
// or 1 s; a hold that runs out unreleased (a guest restored from a checkpoint taken in it, whose host's 'F' was lost or
// late) sends the held step's full heartbeat before any new step, so the first full heartbeat a restore host reads
// describes the restored state, not one step past it (the checker's "ahead": seen on a loaded machine, micro-VM).
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildAgent } from '../../../harness/targets/guest/agent-build.js';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'soak-agent-hold-'));
let bin = '';
beforeAll(async () => {
  bin = (await buildAgent(path.join(tmp, 'bin'))).file;
}, 180_000);
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** The agent on a stdio console; its lines one at a time. */
function agent(): { write: (s: string) => void; next: () => Promise<string>; stop: () => void } {
  const p = spawn(bin, [mkdtempSync(path.join(tmp, 'ws-')), '5', '-'], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines: string[] = [];
  const waiters: ((l: string) => void)[] = [];
  createInterface({ input: p.stdout }).on('line', (l) => {
    const w = waiters.shift();
    if (w) w(l);
    else lines.push(l);
  });
  return {
    write: (s) => p.stdin.write(s),
    next: () => (lines.length > 0 ? Promise.resolve(lines.shift()!) : new Promise((r) => waiters.push(r))),
    stop: () => p.kill('SIGKILL'),
  };
}

/** Read lines until one matches `re`; returns it and the lines before it. */
async function until(a: ReturnType<typeof agent>, re: RegExp): Promise<{ line: string; before: string[] }> {
  const before: string[] = [];
  for (;;) {
    const line = await a.next();
    if (re.test(line)) return { line, before };
    before.push(line);
  }
}

describe('the agent hold', () => {
  it('a hold that runs out unreleased sends the held step full before the next step; a released one does not', async () => {
    const a = agent();
    try {
      await until(a, /^HB 3 /); // stepping
      a.write('H');
      const held = Number((await until(a, /^HOLD \d+$/)).line.split(' ')[1]);
      // nobody releases it: after 1 s of its own time the agent steps on, its held step's full heartbeat first
      const next = await until(a, /^HB(F)? /);
      expect(next.line, 'the first heartbeat after the hold').toMatch(new RegExp(`^HBF ${held} `));
      expect(await a.next()).toMatch(new RegExp(`^HB ${held + 1} `));
      // control: a hold released with 'R' goes on with a plain step (no full heartbeat nobody asked for)
      a.write('H');
      const again = Number((await until(a, /^HOLD \d+$/)).line.split(' ')[1]);
      a.write('R');
      expect((await until(a, /^HB(F)? /)).line).toMatch(new RegExp(`^HB ${again + 1} `));
    } finally {
      a.stop();
    }
  }, 60_000);
});
