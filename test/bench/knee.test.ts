// The knee's answer and page (bench/knee-page.ts): the largest N at which every gate passed stops at the first N that
// failed (a pass above a fail is not the knee), says when none passed, and the page escapes what it shows and draws
// the chart as an SVG without script; tree-memory counts a real child process's memory.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { kneePage, largestPassing, type KneeRow } from '../../bench/knee-page.js';
import { treePssBytes } from '../../bench/tree-memory.js';

const row = (n: number, verdict: string, failing: string[] = []): KneeRow => ({
  n,
  verdict,
  failing,
  cycles: 80 * n,
  failed: 0,
  killResume: `${80 * n}/${80 * n}`,
  killResumeInterval: [0.97, 1],
  killResumeNote: '',
  downP50: 100 * n,
  downP95: 200 * n,
  downP95Interval: [150 * n, 250 * n],
  pauseP95: 10,
  checkpointsPerS: 5,
  logicalMBps: 1,
  storedKBps: 2,
  dedup: 100,
  apartDedup: 50,
  peakPssMiB: 100 * n,
  sessionsPerGiB: 10,
  load: { before: 1, after: 2, p50: 1.5 },
  otherCpuP50: 3,
  seconds: 60,
});

describe('the knee', () => {
  it('is the largest passing N below the first failing one', () => {
    const rows = [row(1, 'pass'), row(2, 'pass'), row(4, 'fail', ['fail 4']), row(8, 'pass')];
    expect(largestPassing(rows)).toMatch(
      /^Largest N at which every gate passed: 2 \(kill-and-resume 160\/160, 95% interval 97\.0%-100\.0%; downtime p95 400 ms/,
    );
    expect(largestPassing(rows)).toContain('At N = 4: fail 4.');
    // the control: without the fail, N = 8 is the answer
    expect(largestPassing([row(1, 'pass'), row(8, 'pass')])).toMatch(/passed: 8 /);
    expect(largestPassing([row(1, 'insufficient', ['insufficient 6'])])).toMatch(
      /^No N passed every gate \(verdicts: N 1 insufficient\)/,
    );
  });

  it('writes a page whose text is escaped and whose chart is an SVG with no script', async () => {
    const page = await kneePage({
      target: '<script>x</script>',
      scenario: 's',
      cycles: 80,
      cores: 2,
      rows: [row(1, 'pass'), row(2, 'pass')],
    });
    expect(page.html).not.toContain('<script>x');
    expect(page.html).toContain('&lt;script&gt;x');
    expect(page.html).toMatch(/<svg[^>]*>[\s\S]*Downtime against sessions at once[\s\S]*<\/svg>/);
    expect(page.markdown).toContain('| 2 | pass |');
  });

  it("counts a child process's memory in its tree and its parent's", async () => {
    const child = spawn(process.execPath, ['-e', 'const b = Buffer.alloc(64 << 20, 1); setInterval(() => b[0]++, 50)']);
    try {
      let bytes = 0;
      // until the child has touched its 64 MiB (progress, not a fixed sleep; a minute at most)
      for (let i = 0; i < 1200 && bytes < 64 * 2 ** 20; i++) {
        await new Promise((r) => setTimeout(r, 50));
        bytes = treePssBytes(child.pid!);
      }
      expect(bytes).toBeGreaterThanOrEqual(64 * 2 ** 20);
      // the parent's tree holds the child: its own PSS plus (nearly all of) the child's
      const own = Number(/^Pss:\s+(\d+) kB/m.exec(readFileSync('/proc/self/smaps_rollup', 'utf8'))?.[1]) * 1024;
      expect(treePssBytes(process.pid)).toBeGreaterThan(own + 0.9 * bytes);
    } finally {
      child.kill('SIGKILL');
    }
  }, 90_000);
});
