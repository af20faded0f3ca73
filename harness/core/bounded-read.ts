// Reading a config file (scenario, gate) within bounds: stat first and refuse what is not a regular file (a FIFO, a
// device such as /dev/zero, a folder) or is over the size limit, then read at most the limit, so a file that grows or
// lies about its size cannot make soak read without end. Refusals are one-line ConfigErrors (exit 3).
import { closeSync, constants, fstatSync, openSync, readSync, statSync, type Stats } from 'node:fs';
import { ConfigError } from './errors.js';

/** The size limit of a scenario or gate file: they are a few KiB; anything near this is not one. */
export const CONFIG_FILE_MAX_BYTES = 1024 * 1024;

function kindOf(st: Stats): string {
  if (st.isDirectory()) return 'a folder';
  if (st.isFIFO()) return 'a FIFO';
  if (st.isCharacterDevice() || st.isBlockDevice()) return 'a device';
  if (st.isSocket()) return 'a socket';
  return 'not a regular file';
}

/** Refuse `st` unless it is a regular file of at most `max` bytes. */
function check(st: Stats, what: string, file: string, max: number): void {
  if (!st.isFile()) throw new ConfigError(`${what} ${file} is ${kindOf(st)}, not a regular file: pass a .yaml file`);
  if (st.size > max) throw new ConfigError(`${what} ${file} is ${st.size} bytes, over the limit of ${max} bytes`);
}

/** The text of config file `file` (`what`: "scenario", "gate file"), refused unless regular and at most `max` bytes. */
export function readBoundedText(file: string, what: string, max: number = CONFIG_FILE_MAX_BYTES): string {
  const fail = (err: unknown): never => {
    throw new ConfigError(`${what} ${file} cannot be read (${(err as { code?: string }).code ?? String(err)})`, {
      cause: err,
    });
  };
  let st: Stats;
  try {
    st = statSync(file);
  } catch (err) {
    return fail(err);
  }
  check(st, what, file, max); // before opening: opening a FIFO waits for a writer, some devices act on open
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY);
  } catch (err) {
    return fail(err);
  }
  try {
    check(fstatSync(fd), what, file, max); // the file opened is the one checked, not one swapped in since
    const buf = Buffer.alloc(max + 1);
    let got = 0;
    for (;;) {
      const n = got < buf.length ? readSync(fd, buf, got, buf.length - got, null) : 0;
      if (n === 0) break;
      got += n;
    }
    if (got > max) throw new ConfigError(`${what} ${file} grew past the limit of ${max} bytes while it was read`);
    return buf.toString('utf8', 0, got);
  } finally {
    closeSync(fd);
  }
}
