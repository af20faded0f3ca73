// The guest-state probe on the microvm target: its holder runs in the guest (init starts it with soak.probe=1) and talks
// on the guest's ttyS1, a unix socket of each QEMU here; after a restore the restored holder is asked to examine.
import { connect, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseProbeLine, type ProbeLine } from '../../check/survival.js';

/** How often a restored guest is asked again until its tty echoes the request (bytes around a restore may be lost). */
const ASK_AGAIN_MS = 100;
/** How long the port's socket may take to appear after QEMU's start (it is made before QMP answers). */
const CONNECT_TRIES = 50;

/** The probe of one session, across the QEMU processes of its boots and restores. */
export class GuestProbe {
  private conn: Socket | null = null;
  private buf = '';
  /** The request the guest has not yet echoed (then the examination it asked for is awaited), or null. */
  private asking: { timer: NodeJS.Timeout | undefined; echoed: boolean; deadline: NodeJS.Timeout } | null = null;
  private lastNoise = '';
  /** Told each probe line: `ready` after the setup at boot, `examined` once per restore, `error`. */
  readonly listeners: ((line: ProbeLine) => void)[] = [];

  private emit(line: ProbeLine): void {
    for (const l of this.listeners) l(line);
  }

  /** A new QEMU's probe port: connect to its socket (QEMU listens on it from its start, wait=off). */
  async attach(socketPath: string): Promise<void> {
    this.detach();
    for (let i = 0; ; i++) {
      try {
        this.conn = await new Promise<Socket>((resolve, reject) => {
          const s = connect(socketPath, () => resolve(s));
          s.once('error', reject);
        });
        break;
      } catch (err) {
        if (i >= CONNECT_TRIES) {
          this.emit({ event: 'error', message: `probe port ${socketPath}: ${(err as Error).message}` });
          return;
        }
        await sleep(20);
      }
    }
    const conn = this.conn;
    conn.setEncoding('utf8');
    conn.on('error', () => {}); // QEMU killed: the session is over, nothing more to hear
    conn.on('data', (chunk: string) => this.push(chunk));
  }

  /**
   * After a restore's `cont`: ask the restored holder to examine (`examine <host ms>`), again every ASK_AGAIN_MS until
   * the guest's tty echoes one (it arrived), then wait for the examination line; an error line after `timeoutMs`.
   */
  examine(timeoutMs: number): void {
    this.stopAsking();
    const ask = (): void => void this.conn?.write(`examine ${Date.now()}\n`);
    const deadline = setTimeout(() => {
      this.stopAsking();
      const heard = this.lastNoise === '' ? 'nothing' : `last: ${this.lastNoise}`;
      this.emit({ event: 'error', message: `probe: no examination from the guest within ${timeoutMs} ms (${heard})` });
    }, timeoutMs);
    this.asking = { timer: setInterval(ask, ASK_AGAIN_MS), echoed: false, deadline };
    ask();
  }

  /** The QEMU is gone or going: forget its port. */
  detach(): void {
    this.stopAsking();
    this.conn?.destroy();
    this.conn = null;
    this.buf = '';
  }

  private stopAsking(): void {
    clearInterval(this.asking?.timer);
    clearTimeout(this.asking?.deadline);
    this.asking = null;
  }

  private push(chunk: string): void {
    this.buf += chunk;
    for (let nl = this.buf.indexOf('\n'); nl >= 0; nl = this.buf.indexOf('\n')) {
      const line = this.buf.slice(0, nl).replace(/\r$/, '');
      this.buf = this.buf.slice(nl + 1);
      this.line(line);
    }
    if (this.buf.length > 1 << 20) this.buf = ''; // no line this long is ever sent: noise
  }

  private line(text: string): void {
    if (/^examine \d+$/.test(text)) {
      // the tty's echo: the request arrived, the holder is examining; ask no more
      if (this.asking !== null) {
        clearInterval(this.asking.timer);
        this.asking.echoed = true;
      }
      return;
    }
    let raw: unknown;
    try {
      raw = text.startsWith('{') ? JSON.parse(text) : null;
    } catch {
      raw = null;
    }
    const line = raw === null ? 'not JSON' : parseProbeLine(raw);
    if (typeof line === 'string') {
      this.lastNoise = text.slice(0, 200); // bytes cut by a checkpoint, a line the guest was writing
      return;
    }
    if (line.event === 'examined') {
      if (this.asking?.echoed !== true) return; // not an answer to this restore's request
      this.stopAsking();
    }
    this.emit(line);
  }
}
