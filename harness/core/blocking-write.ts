// A line written to an inherited descriptor before the call returns. Node's process.stdout on the socket a parent's
// spawn() gives its child is asynchronous: when the parent reads slowly, writes queue in this process's memory and a
// SIGKILL loses them (a loaded 16-session knee: a runner missed four committed checkpoints and 150 steps of
// heartbeats, and judged the resume "ahead"). Written here, a line is in the kernel's buffer once the call returns,
// where the reader finds it after this process dies; a full buffer makes the writer wait instead.
import { writeSync } from 'node:fs';
import { sleepSync } from './clock.js';

/** Write all of `text` to `fd`, waiting (1 ms at a time) while the descriptor is non-blocking and full. */
export function writeBlocking(fd: number, text: string): void {
  let buf = Buffer.from(text);
  while (buf.length > 0) {
    try {
      buf = buf.subarray(writeSync(fd, buf));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EAGAIN') throw err;
      sleepSync(1);
    }
  }
}
