// A guest serial port beside the console (the probe's ttyS1, the clock's ttyS2): QEMU's unix-socket chardev, read line
// by line (a tty's \r\n trimmed).
import { connect, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

/** How long the port's socket may take to appear after QEMU's start (it is made before QMP answers). */
const CONNECT_TRIES = 50;

/** Connect to the port's socket (QEMU listens on it from its start, wait=off); each line to `onLine`; an Error if not. */
export async function connectPort(socketPath: string, onLine: (line: string) => void): Promise<Socket | Error> {
  let conn: Socket;
  for (let i = 0; ; i++) {
    try {
      conn = await new Promise<Socket>((resolve, reject) => {
        const s = connect(socketPath, () => resolve(s));
        s.once('error', reject);
      });
      break;
    } catch (err) {
      if (i >= CONNECT_TRIES) return new Error(`port ${socketPath}: ${(err as Error).message}`);
      await sleep(20);
    }
  }
  let buf = '';
  conn.setEncoding('utf8');
  conn.on('error', () => {}); // QEMU killed: the session is over, nothing more to hear
  conn.on('data', (chunk: string) => {
    buf += chunk;
    for (let nl = buf.indexOf('\n'); nl >= 0; nl = buf.indexOf('\n')) {
      const line = buf.slice(0, nl).replace(/\r$/, '');
      buf = buf.slice(nl + 1);
      onLine(line);
    }
    if (buf.length > 1 << 20) buf = ''; // no line this long is ever sent: noise
  });
  return conn;
}
