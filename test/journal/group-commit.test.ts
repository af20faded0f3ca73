// Journal appends are off the kill path: with every fsync made seconds slow (the test-only switch), appends return at
// once, a SIGKILL planned while the journal is busy goes at its planned time, the kill event's t is when the signal
// went, and durable() still waits for the slow fsync. Negative control: a synchronous fsync (close) on the thread that
// aims the kill delays it by the fsync, and the same measurement sees it.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { nowMs } from '../../harness/core/clock.js';
import { TEST_JOURNAL_FSYNC_DELAY_MS } from '../../harness/journal/group-commit.js';
import { JournalWriter, readJournal } from '../../harness/journal/writer.js';
import { runStartLine } from '../helpers/journal-events.js';

const FSYNC_MS = 3000;
let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'soak-group-commit-'));
  process.env[TEST_JOURNAL_FSYNC_DELAY_MS] = String(FSYNC_MS);
});
afterEach(() => {
  Reflect.deleteProperty(process.env, TEST_JOURNAL_FSYNC_DELAY_MS);
  rmSync(dir, { recursive: true, force: true });
});

/** Plan a SIGKILL of a real process group 300 ms ahead while the journal is busy; `stall` runs just before it is due. */
async function killWhileJournaling(stall: (w: JournalWriter) => void): Promise<{
  lateMs: number;
  appendMs: number;
  sentAt: number;
  w: JournalWriter;
  start: number;
}> {
  const start = nowMs();
  writeFileSync(path.join(dir, 'journal.ndjson'), runStartLine());
  const w = new JournalWriter(path.join(dir, 'journal.ndjson'), () => nowMs() - start);
  const child = spawn('sleep', ['60'], { detached: true, stdio: 'ignore' });
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  await new Promise<void>((r) => child.once('spawn', () => r()));
  const plannedAt = nowMs() + 300;
  const t0 = nowMs();
  for (let i = 0; i < 20; i++) w.append({ type: 'cycle-start', cycle: i + 1, phase: 'work' });
  const appendMs = nowMs() - t0;
  const traffic = setInterval(() => w.append({ type: 'host-start', cycle: 1, pid: 1, mode: 'boot' }), 20);
  setTimeout(() => {
    clearInterval(traffic);
    stall(w);
  }, 250);
  const sentAt = await new Promise<number>((resolve) =>
    setTimeout(() => {
      const at = nowMs();
      process.kill(-child.pid!, 'SIGKILL');
      resolve(at);
    }, plannedAt - nowMs()),
  );
  clearInterval(traffic);
  await exited;
  return { lateMs: sentAt - plannedAt, appendMs, sentAt, w, start };
}

describe('journal group commit', () => {
  it('a journal whose every fsync takes 3 s does not delay a planned SIGKILL; the kill event is timed at the signal', async () => {
    const { lateMs, appendMs, sentAt, w, start } = await killWhileJournaling(() => {});
    const kill = w.append(
      {
        type: 'kill',
        cycle: 1,
        phase: 'work',
        observedPhase: 'work',
        atStep: 3,
        nonce: 'n',
        lastCommittedSeq: 0,
        lastCommittedStep: 0,
        inFlightSeq: null,
      },
      { at: sentAt },
    );
    // generous on a loaded machine: a fraction of the fsync's stall, not a fixed latency
    expect(lateMs).toBeLessThan(FSYNC_MS / 3);
    expect(appendMs).toBeLessThan(FSYNC_MS / 3);
    // within 1 ms: t is rounded to µs and comes from two clock reads, which a loaded machine can preempt between
    expect(Math.abs(kill.t - (sentAt - start))).toBeLessThan(1);
    const t = nowMs();
    await w.durable(); // the fsync really is slow: durable() waits for it
    const waited = nowMs() - t;
    w.close();
    expect(waited).toBeGreaterThan(FSYNC_MS / 3);
    const events = readJournal(w.file).events;
    expect(events.at(-1)).toEqual(kill);
    expect(events.filter((e) => e.type === 'cycle-start')).toHaveLength(20);
  });

  it('negative control: an fsync on the thread that aims the kill (close) makes it late by the fsync, and that is seen', async () => {
    const { lateMs } = await killWhileJournaling((w) => w.close());
    expect(lateMs).toBeGreaterThan(FSYNC_MS * 0.8);
  });
});
