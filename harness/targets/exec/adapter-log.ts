// What an adapter may put into the host log (hosts.log): its stderr and its `log` messages, within one byte budget per
// adapter process, so an adapter that writes without end cannot fill the run's disk (which the runner would then take
// for a full disk: the machine's fault, not the adapter's). Past the budget one line says so and the rest is dropped.
import type { Readable } from 'node:stream';

/** Bytes of stderr and log messages one adapter process may write into the host log. */
export const ADAPTER_LOG_BUDGET = 8 << 20;

/** The host-log writer of one adapter process. */
export class AdapterLog {
  private left: number;
  private dropped = 0;

  constructor(
    private readonly write: (text: string | Buffer) => void = (t) => void process.stderr.write(t),
    budget = ADAPTER_LOG_BUDGET,
  ) {
    this.left = budget;
  }

  /** Bytes dropped so far. */
  get droppedBytes(): number {
    return this.dropped;
  }

  /** Write `text` while the budget lasts; the first write past it leaves one line saying the rest is dropped. */
  line(text: string | Buffer): void {
    const bytes = typeof text === 'string' ? Buffer.byteLength(text) : text.length;
    if (bytes <= this.left) {
      this.left -= bytes;
      this.write(text);
      return;
    }
    if (this.dropped === 0)
      this.write(`host: the adapter wrote over ${ADAPTER_LOG_BUDGET} bytes of log: the rest is dropped\n`);
    this.left = 0;
    this.dropped += bytes;
  }

  /** Copy `stream` (the adapter's stderr) into the log within the budget, draining it whole so the adapter never blocks. */
  follow(stream: Readable): void {
    stream.on('data', (chunk: Buffer) => this.line(chunk));
    stream.on('error', () => {}); // a dead adapter's stderr: its exit is reported elsewhere
  }
}
