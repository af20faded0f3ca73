// The guest-state probe on the microvm target: its holder runs in the guest (init starts it with soak.probe=1) and talks
// on the guest's ttyS1, a unix socket of each QEMU here; after a restore the restored holder is asked to examine.
import type { Socket } from 'node:net';
import { parseProbeLine, type ProbeLine } from '../../check/survival.js';
import { connectPort } from './serial-port.js';

/** How often a later clock reading is asked again until it is answered. */
const CLOCK_AGAIN_MS = 2_000;

/** How often a restored guest is asked again until its tty echoes the request (bytes around a restore may be lost). */
const ASK_AGAIN_MS = 100;

/** The probe of one session, across the QEMU processes of its boots and restores. */
export class GuestProbe {
  private conn: Socket | null = null;
  /** The request the guest has not yet echoed (then the examination it asked for is awaited), or null. */
  private asking: { timer: NodeJS.Timeout | undefined; echoed: boolean; deadline: NodeJS.Timeout } | null = null;
  private lastNoise = '';
  /** When the restored guest was let run (Date.now()), and the later clock readings waiting for their moment. */
  private resumedAt = 0;
  private readonly later: NodeJS.Timeout[] = [];
  /** The later readings asked for and not answered yet (seconds after the resume). */
  private readonly waiting = new Set<number>();
  /** Told each probe line: `ready` after the setup at boot, `examined` once per restore, `clock`, `error`. */
  readonly listeners: ((line: ProbeLine) => void)[] = [];

  /** `clockAfter`: seconds after each resume to read the guest's wall clock again (targetOptions.probeClockAfter). */
  constructor(private readonly clockAfter: readonly number[] = []) {}

  private emit(line: ProbeLine): void {
    for (const l of this.listeners) l(line);
  }

  /** A new QEMU's probe port (serial-port.ts). */
  async attach(socketPath: string): Promise<void> {
    this.detach();
    const conn = await connectPort(socketPath, (line) => this.line(line));
    if (conn instanceof Error) this.emit({ event: 'error', message: `probe: ${conn.message}` });
    else this.conn = conn;
  }

  /**
   * After a restore's `cont`: ask the restored holder to examine (`examine <host ms>`), again every ASK_AGAIN_MS until
   * the guest's tty echoes one (it arrived), then wait for the examination line; an error line after `timeoutMs`.
   */
  examine(timeoutMs: number, resumedAt = Date.now()): void {
    this.stopAsking();
    this.resumedAt = resumedAt;
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
  }

  /**
   * After the examination: `clock <host ms> <s>` at each scheduled moment (s after the resume, not before the
   * examination's answer: a request queued behind it would be read late), the host's clock read as it is written;
   * asked again every CLOCK_AGAIN_MS until its answer comes (a serial byte may be lost), the first answer kept.
   */
  private askLater(): void {
    for (const s of this.clockAfter) {
      this.waiting.add(s);
      const ask = (): void => {
        if (!this.waiting.has(s)) return;
        void this.conn?.write(`clock ${Date.now()} ${s}\n`);
        this.later.push(setTimeout(ask, CLOCK_AGAIN_MS));
      };
      this.later.push(setTimeout(ask, Math.max(0, this.resumedAt + s * 1000 - Date.now())));
    }
  }

  private stopAsking(): void {
    for (const t of this.later.splice(0)) clearTimeout(t);
    this.waiting.clear();
    clearInterval(this.asking?.timer);
    clearTimeout(this.asking?.deadline);
    this.asking = null;
  }

  private line(text: string): void {
    if (/^clock \d+ \d+$/.test(text)) return; // the tty's echo of a later clock request
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
      this.emit(line);
      this.askLater();
      return;
    }
    if (line.event === 'clock' && !this.waiting.delete(line.after)) return; // asked again, answered twice: the first kept
    this.emit(line);
  }
}
