// The process target's probe starts no process while the session is in a checkpoint pause (a spawn blocks the host's
// event loop ~10-20 ms on a loaded machine, which the pause would pay: bench/probe-cost), and starts it once it ends.
import { mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ProbeLine } from '../../../harness/check/survival.js';
import { buildProbe } from '../../../harness/targets/guest/probe-build.js';
import { ProcessProbe } from '../../../harness/targets/process/probe.js';

/** This process's children running `binary` (a spawn makes its child at once, before any line is read). */
function probeChildren(binary: string): string[] {
  const task = '/proc/self/task';
  return readdirSync(task)
    .flatMap((t) =>
      readFileSync(path.join(task, t, 'children'), 'utf8')
        .split(' ')
        .filter(Boolean),
    )
    .filter((pid) => readlinkSafe(`/proc/${pid}/exe`) === binary);
}
function readlinkSafe(p: string): string | null {
  try {
    return readlinkSync(p);
  } catch {
    return null;
  }
}

const tmp = mkdtempSync(path.join(os.tmpdir(), 'soak-probe-pause-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('the process probe and the checkpoint pause', () => {
  it('holds its setup while the session is paused, and runs it once the pause ends', async () => {
    const binary = await buildProbe();
    const lines: ProbeLine[] = [];
    let paused = true;
    let asked = 0;
    let polledWhilePaused: () => void = () => {};
    const polled = new Promise<void>((resolve) => (polledWhilePaused = resolve));
    const pausing = (): boolean => {
      if (paused && ++asked === 20) polledWhilePaused();
      return paused;
    };
    let ready: () => void = () => {};
    const readied = new Promise<void>((resolve) => (ready = resolve));
    const emit = (l: ProbeLine): void => {
      lines.push(l);
      ready();
    };
    const probe = new ProcessProbe(binary, path.join(tmp, 'probe'), tmp, emit, pausing);
    try {
      probe.start();
      await polled; // it asked 20 times and was told the session is paused each time: no process may have started
      expect(probeChildren(binary)).toEqual([]);
      expect(lines).toEqual([]);
      paused = false;
      await readied;
      expect(lines[0]?.event, JSON.stringify(lines)).toBe('ready');
      expect(probeChildren(binary)).toHaveLength(1); // the control: the holder shows as this process's child
    } finally {
      await probe.stop();
    }
  }, 60_000);

  it('stops without starting anything when stopped during a pause', async () => {
    const binary = await buildProbe();
    const lines: ProbeLine[] = [];
    let asked: () => void = () => {};
    const polled = new Promise<void>((resolve) => (asked = resolve));
    const probe = new ProcessProbe(
      binary,
      path.join(tmp, 'stopped'),
      tmp,
      (l) => lines.push(l),
      () => (asked(), true),
    );
    probe.start();
    await polled;
    await probe.stop(); // must not wait for a pause that never ends
    expect(lines).toEqual([]);
  }, 60_000);
});
