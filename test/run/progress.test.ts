// Progress of a run's two phases, boot samples then cycles, through one home (run/progress.ts): on a terminal a bar
// rewritten in place; in CI a plain line at each 10% step, so 59 boot samples print 10 lines, not 59 and not none.
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { CycleEvent } from '../../harness/journal/events.js';
import { quietProgress, streamProgress } from '../../harness/run/progress.js';

/** A real writable stream that keeps what it was given, a terminal or not. */
function sink(tty: boolean): { stream: NodeJS.WriteStream; text: () => string } {
  let out = '';
  const w = new Writable({
    write(chunk: Buffer, _enc, done) {
      out += chunk.toString();
      done();
    },
  });
  return { stream: Object.assign(w, { isTTY: tty }) as unknown as NodeJS.WriteStream, text: () => out };
}

const cycle = (outcome: CycleEvent['outcome'], downtimeMs: number | null): CycleEvent =>
  ({ type: 'cycle', cycle: 1, outcome, downtimeMs }) as unknown as CycleEvent;

describe('streamProgress', () => {
  it('in CI: one plain line per 10% of the boot samples (10 for 59), counting those not counted', () => {
    const { stream, text } = sink(false);
    const p = streamProgress(stream);
    p.startSamples(59);
    for (let i = 1; i <= 59; i++) p.sample(i === 7 ? null : 400 + i);
    const lines = text().split('\n').filter(Boolean);
    expect(lines).toHaveLength(10);
    expect(lines[0]).toMatch(/^progress: 6\/59 boot samples, boot p95 \d+\.\d ms, elapsed \d+s, ETA \d+s$/);
    expect(lines[1]).toMatch(/^progress: 12\/59 boot samples, 1 not counted, boot p95 /);
    expect(lines[9]).toMatch(
      /^progress: 59\/59 boot samples, 1 not counted, boot p95 456\.1 ms, elapsed \d+s, ETA 0s$/,
    );
    p.start(20);
    for (let i = 0; i < 20; i++) p.cycle(cycle(i === 3 ? 'fail' : 'ok', 200));
    p.finish();
    const cycleLines = text()
      .split('\n')
      .filter((l) => l.includes('cycles'));
    expect(cycleLines).toHaveLength(10);
    expect(cycleLines[9]).toMatch(/^progress: 20\/20 cycles, 1 failed, downtime p95 200\.0 ms/);
    expect(text()).not.toContain('\r');
  });

  it('on a terminal: a bar rewritten in place for each sample, ended before the cycles start', () => {
    const { stream, text } = sink(true);
    const p = streamProgress(stream);
    p.startSamples(4);
    p.sample(300);
    expect(text()).toBe('\r[######..................] 1/4 boot samples, boot p95 300.0 ms, elapsed 0s, ETA 0s\x1b[K');
    for (let i = 0; i < 3; i++) p.sample(300);
    p.start(2);
    expect(text().endsWith('4/4 boot samples, boot p95 300.0 ms, elapsed 0s, ETA 0s\x1b[K\n')).toBe(true);
    p.cycle(cycle('ok', 100));
    p.finish();
    expect(
      text().endsWith(
        `\r[${'#'.repeat(12)}${'.'.repeat(12)}] 1/2 cycles, 0 failed, downtime p95 100.0 ms, elapsed 0s, ETA 0s\x1b[K\n`,
      ),
    ).toBe(true);
  });

  it('no samples: no sample line; quiet progress writes nothing', () => {
    const { stream, text } = sink(false);
    const p = streamProgress(stream);
    p.start(1);
    p.cycle(cycle('ok', 50));
    p.finish();
    expect(text()).toBe('progress: 1/1 cycles, 0 failed, downtime p95 50.0 ms, elapsed 0s, ETA 0s\n');
    quietProgress.startSamples(3);
    quietProgress.sample(1);
  });
});
