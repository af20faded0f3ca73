// Split a byte stream into NDJSON messages; tolerate and report non-JSON lines instead of throwing.
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';

/** Call `onMessage` for every JSON object line of `stream`, `onOther` for any other line; resolves at EOF. */
export function readMessages(
  stream: Readable,
  onMessage: (msg: Record<string, unknown>) => void,
  onOther: (line: string) => void = () => {},
): Promise<void> {
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
  });
}
