// Logging through pino: JSON lines into the run folder, short readable lines on the terminal (warnings and up by default;
// controls made visible).
import { Writable } from 'node:stream';
import { pino, type Logger } from 'pino';
import { visible } from './visible.js';

export type { Logger };

const levelNames: Record<number, string> = {
  10: 'trace',
  20: 'debug',
  30: 'info',
  40: 'warn',
  50: 'error',
  60: 'fatal',
};

/** A stream that turns pino JSON lines into `level: msg key=value` lines on stderr. */
function terminalStream(): Writable {
  return new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString().split('\n')) {
        if (!line) continue;
        try {
          const { level, msg, time: _t, pid: _p, hostname: _h, ...rest } = JSON.parse(line) as Record<string, unknown>;
          const extras = Object.entries(rest)
            .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`)
            .join(' ');
          process.stderr.write(
            visible(`${levelNames[level as number] ?? 'log'}: ${String(msg)}${extras ? ` ${extras}` : ''}\n`),
          );
        } catch {
          process.stderr.write(`${visible(line)}\n`);
        }
      }
      done();
    },
  });
}

/** A logger writing JSON to `file` (when given) and readable lines at `terminalLevel` or above to stderr. */
export function createLogger(
  file: string | null,
  terminalLevel: 'debug' | 'info' | 'warn' | 'silent' = 'warn',
): Logger {
  const streams: pino.StreamEntry[] = [];
  if (file) streams.push({ level: 'debug', stream: pino.destination({ dest: file, append: true, sync: true }) });
  if (terminalLevel !== 'silent') streams.push({ level: terminalLevel, stream: terminalStream() });
  return pino({ level: 'debug', base: undefined }, pino.multistream(streams));
}
