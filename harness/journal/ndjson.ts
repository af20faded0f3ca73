// Split a byte stream into NDJSON messages; tolerate and report non-JSON lines instead of throwing.
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';

/** A bound on one line from a writer the reader does not trust (an exec adapter): past it, the stream is cut. */
export interface LineBound {
  maxLineBytes: number;
  /** Called once, with the bytes seen without a newline, before the stream is destroyed. */
  onOverflow: (bytes: number) => void;
}

/**
 * Call `onMessage` for every JSON object line of `stream`, `onOther` for any other line; resolves at EOF. With `bound`,
 * a line longer than its limit (a writer that never sends a newline) is not buffered without end: the stream is cut.
 */
export function readMessages(
  stream: Readable,
  onMessage: (msg: Record<string, unknown>) => void,
  onOther: (line: string) => void = () => {},
  bound?: LineBound,
): Promise<void> {
  if (bound) {
    let open = 0; // bytes of the line not yet ended by a newline
    stream.on('data', (chunk: Buffer) => {
      let longest = 0;
      let from = 0;
      for (let nl = chunk.indexOf(10); nl >= 0; nl = chunk.indexOf(10, from)) {
        longest = Math.max(longest, open + nl - from);
        open = 0;
        from = nl + 1;
      }
      open += chunk.length - from;
      const seen = Math.max(longest, open);
      if (seen > bound.maxLineBytes) {
        bound.onOverflow(seen);
        stream.destroy();
      }
    });
  }
  return new Promise((resolve) => {
    const rl = createInterface({ input: stream, crlfDelay: Infinity });
    rl.on('line', (line) => {
      if (line.length === 0) return;
      let msg: unknown;
      try {
        msg = JSON.parse(line);
      } catch {
        onOther(line);
        return;
      }
      if (typeof msg === 'object' && msg !== null && !Array.isArray(msg)) onMessage(msg as Record<string, unknown>);
      else onOther(line);
    });
    rl.on('close', () => resolve());
    stream.once('close', () => rl.close()); // a destroyed stream never ends: close the reader with it
  });
}
