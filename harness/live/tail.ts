// The last lines of a file that is being appended to (an agent's workspace log, a run's journal), read on each update.
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';

/** How many bytes from the end are read: enough for the last lines the page shows. */
const TAIL_BYTES = 2048;

/** The last `n` complete lines of `file` (empty when it does not exist or cannot be read). */
export function tailLines(file: string, n: number): string[] {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch {
    return [];
  }
  try {
    const size = fstatSync(fd).size;
    const len = Math.min(size, TAIL_BYTES);
    const buf = Buffer.alloc(len);
    readSync(fd, buf, 0, len, size - len);
    const lines = buf.toString('utf8').split('\n');
    lines.pop(); // the part after the last newline: empty, or a line still being written
    if (len < size) lines.shift(); // the first piece may be cut
    return lines.slice(-n);
  } catch {
    return [];
  } finally {
    closeSync(fd);
  }
}
