// A line the session host sends is readable after the host is SIGKILLed (core/blocking-write.ts): a writer whose reader
// does not read gets as far as the kernel's buffer and waits there, and every line it finished writing is read after
// its death. Negative control: through process.stdout (Node's asynchronous socket writes) the writer races ahead and
// the SIGKILL loses the lines still queued in its memory (how a loaded knee lost four committed checkpoints).
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'soak-blocking-write-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const fixture = path.join(import.meta.dirname, '..', 'fixtures', 'blocking-writer.mjs');
const TOTAL = 5_000; // ~430 KB: ten times what a local socket took here before its writer waited

/** Run the writer without reading its stdout until it is stuck (or done), SIGKILL it, then read its stdout to the end. */
async function killedWriter(mode: 'blocking' | 'stream'): Promise<{ written: number | 'done'; read: number }> {
  const countFile = path.join(tmp, `${mode}.count`);
  const child = spawn(process.execPath, [fixture, mode, countFile, String(TOTAL)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  child.stdout.pause(); // the reader does not read (a runner behind on its event loop)
  const count = (): string => (existsSync(countFile) ? readFileSync(countFile, 'utf8') : '');
  // progress observed, not a sleep: wait for the count to stop moving (blocking: the buffer is full) or to say done
  for (let last = '', same = 0; same < 10;) {
    await new Promise((r) => setTimeout(r, 50));
    const now = count();
    same = now !== '' && (now === last || now === 'done') ? same + 1 : 0;
    last = now;
  }
  child.kill('SIGKILL');
  const text: string[] = [];
  child.stdout.on('data', (d: Buffer) => text.push(d.toString()));
  child.stdout.resume();
  await new Promise((r) => child.once('close', r));
  const lines = text
    .join('')
    .split('\n')
    .filter((l) => l !== '');
  const complete = lines.filter((l) => l.endsWith('}')).map((l) => (JSON.parse(l) as { step: number }).step);
  const c = count();
  return { written: c === 'done' ? 'done' : Number(c), read: complete.length === 0 ? 0 : Math.max(...complete) };
}

describe('writeBlocking', () => {
  it('every line written before a SIGKILL is read after it; the writer waited at the full buffer', async () => {
    const { written, read } = await killedWriter('blocking');
    expect(written).not.toBe('done'); // it could not run ahead of its reader
    expect(read).toBeGreaterThanOrEqual(written as number);
    expect(read).toBeGreaterThan(100);
  }, 60_000);

  it('negative control: process.stdout hands every line to Node at once, and the SIGKILL loses the queued ones', async () => {
    const { written, read } = await killedWriter('stream');
    expect(written).toBe('done');
    expect(read).toBeLessThan(TOTAL);
  }, 60_000);
});
