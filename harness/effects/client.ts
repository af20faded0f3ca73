// The agent's side of the effect ledger: one connection, one request at a time, and no effect counted as seen by the
// world before the ledger acknowledged it. A refused connection or a cut one is retried until acknowledged (the world
// may then hold the effect twice: what the accounting counts).
import { Socket } from 'node:net';
import { createInterface } from 'node:readline';
import type { EffectRequest } from './ledger-db.js';
import type { LedgerReply } from './request.js';

/** Wait between attempts while the ledger cannot be reached (its runner died; a resumed runner serves a new one). */
const RETRY_MS = 50;

/** A connection to the ledger at `address` (host:port) with the run's `token`. */
export class LedgerClient {
  private socket: Socket | null = null;
  private waiter: ((reply: LedgerReply | null) => void) | null = null;
  private closed = false;

  constructor(
    private readonly address: string,
    private readonly token: string,
  ) {}

  private connect(): Promise<Socket> {
    const [host, port] = this.address.split(':');
    return new Promise((resolve, reject) => {
      const s = new Socket();
      s.once('error', reject);
      s.connect(Number(port), host ?? '127.0.0.1', () => {
        s.off('error', reject);
        s.on('error', () => s.destroy());
        s.on('close', () => {
          if (this.socket === s) this.socket = null;
          this.settle(null);
        });
        createInterface({ input: s }).on('line', (line) => this.settle(JSON.parse(line) as LedgerReply));
        resolve(s);
      });
    });
  }

  private settle(reply: LedgerReply | null): void {
    const w = this.waiter;
    this.waiter = null;
    w?.(reply);
  }

  /** Send `req` until the ledger acknowledges it; a refusal (bad token, bad field) or close() is thrown. */
  async emit(req: EffectRequest): Promise<{ seq: number; applied: boolean }> {
    for (;;) {
      if (this.closed) throw new Error(`effect ledger client closed before ${req.effect} was acknowledged`);
      try {
        this.socket ??= await this.connect();
        const reply = await new Promise<LedgerReply | null>((resolve) => {
          this.waiter = resolve;
          this.socket!.write(`${JSON.stringify({ token: this.token, ...req })}\n`);
        });
        if (reply?.ok === true) return { seq: reply.seq, applied: reply.applied };
        if (reply?.ok === false) throw new Error(`effect ledger refused ${req.effect}: ${reply.error}`);
      } catch (err) {
        if ((err as Error).message.startsWith('effect ledger refused')) throw err;
        this.socket?.destroy();
        this.socket = null;
      }
      await new Promise((r) => setTimeout(r, RETRY_MS));
    }
  }

  /** Stop: no more attempts (an emit under way throws), the connection closed. */
  close(): void {
    this.closed = true;
    this.socket?.destroy();
    this.socket = null;
    this.settle(null);
  }
}
