// Minimal QMP client over a unix socket: greeting, qmp_capabilities, id-matched commands, async events, timeouts.
import { existsSync } from 'node:fs';
import net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { TargetError } from '../../core/errors.js';

/** An asynchronous QMP event (STOP, RESUME, MIGRATION, SHUTDOWN...). */
export interface QmpEvent {
  event: string;
  data?: Record<string, unknown>;
  /** When QEMU emitted it, in ms of the host's wall clock (QMP's `timestamp`), if it said. */
  atMs?: number;
}

interface Pending {
  command: string;
  resolve: (value: unknown) => void;
  reject: (err: Error) => void;
  timer: NodeJS.Timeout;
}

export interface QmpConnectOptions {
  /** Give up connecting after this long (the socket appears once QEMU has started). */
  timeoutMs: number;
  /** Polled while waiting for the socket: return a reason to stop waiting (e.g. QEMU exited). */
  abortReason?: () => string | undefined;
}

/** One QMP session. Commands are matched to replies by id; events go to listeners. */
export class QmpClient {
  private readonly pending = new Map<number, Pending>();
  private readonly listeners = new Set<(ev: QmpEvent) => void>();
  private nextId = 1;
  private buffered = '';
  private closedReason: string | undefined;

  private constructor(
    private readonly socket: net.Socket,
    readonly socketPath: string,
  ) {
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => this.onData(chunk));
    socket.on('error', (err) => this.fail(`QMP socket error: ${err.message}`));
    socket.on('close', () => this.fail('QMP connection closed (QEMU exited?)'));
  }

  /** Connect (retrying until the socket exists), read the greeting, negotiate capabilities. */
  static async connect(socketPath: string, opts: QmpConnectOptions): Promise<QmpClient> {
    const deadline = Date.now() + opts.timeoutMs;
    for (;;) {
      const reason = opts.abortReason?.();
      if (reason !== undefined) throw new TargetError(`QMP connect to ${socketPath} aborted: ${reason}`);
      if (existsSync(socketPath)) {
        try {
          const socket = await openSocket(socketPath);
          const client = new QmpClient(socket, socketPath);
          await client.handshake(Math.max(1000, deadline - Date.now()));
          return client;
        } catch (err) {
          if (Date.now() > deadline)
            throw new TargetError(`QMP connect to ${socketPath} failed: ${(err as Error).message}`, { cause: err });
        }
      }
      if (Date.now() > deadline)
        throw new TargetError(`QMP socket ${socketPath} did not appear within ${opts.timeoutMs} ms`);
      await sleep(10);
    }
  }

  private greeting: ((ok: boolean) => void) | undefined;

  private async handshake(timeoutMs: number): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new TargetError(`no QMP greeting on ${this.socketPath} within ${timeoutMs} ms`)),
        timeoutMs,
      );
      this.greeting = (ok) => {
        clearTimeout(timer);
        if (ok) resolve();
        else reject(new TargetError(`QMP connection closed before the greeting: ${this.closedReason ?? 'unknown'}`));
      };
    });
    await this.execute('qmp_capabilities', undefined, timeoutMs);
  }

  /** Run one command; resolves with its `return` value, rejects on a QMP error, a timeout or a closed connection. */
  execute<T = unknown>(command: string, args?: Record<string, unknown>, timeoutMs = 10_000): Promise<T> {
    if (this.closedReason !== undefined) return Promise.reject(new TargetError(`QMP ${command}: ${this.closedReason}`));
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new TargetError(`QMP ${command} timed out after ${timeoutMs} ms`));
      }, timeoutMs);
      this.pending.set(id, { command, resolve: resolve as (v: unknown) => void, reject, timer });
      const msg = args === undefined ? { execute: command, id } : { execute: command, arguments: args, id };
      this.socket.write(`${JSON.stringify(msg)}\n`);
    });
  }

  /** Listen to asynchronous events; returns an unsubscribe function. */
  onEvent(listener: (ev: QmpEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  close(): void {
    this.fail('QMP client closed');
    this.socket.destroy();
  }

  private onData(chunk: string): void {
    this.buffered += chunk;
    let nl: number;
    while ((nl = this.buffered.indexOf('\n')) >= 0) {
      const line = this.buffered.slice(0, nl).trim();
      this.buffered = this.buffered.slice(nl + 1);
      if (line !== '') this.onMessage(line);
    }
  }

  private onMessage(line: string): void {
    let msg: Record<string, unknown>;
    try {
      msg = JSON.parse(line) as Record<string, unknown>;
    } catch {
      return; // QMP only sends JSON objects; ignore anything else rather than crash the host
    }
    if ('QMP' in msg) {
      this.greeting?.(true);
      this.greeting = undefined;
      return;
    }
    if (typeof msg.event === 'string') {
      const ev: QmpEvent = {
        event: msg.event,
        data: msg.data as Record<string, unknown> | undefined,
        atMs: eventTime(msg.timestamp),
      };
      for (const l of this.listeners) l(ev);
      return;
    }
    const id = typeof msg.id === 'number' ? msg.id : undefined;
    const p = id === undefined ? undefined : this.pending.get(id);
    if (p === undefined || id === undefined) return;
    this.pending.delete(id);
    clearTimeout(p.timer);
    if ('error' in msg) {
      const e = msg.error as { class?: string; desc?: string };
      p.reject(new TargetError(`QMP ${p.command} failed: ${e.class ?? 'Error'}: ${e.desc ?? 'no description'}`));
    } else {
      p.resolve(msg.return);
    }
  }

  private fail(reason: string): void {
    if (this.closedReason !== undefined) return;
    this.closedReason = reason;
    this.greeting?.(false);
    this.greeting = undefined;
    for (const [id, p] of this.pending) {
      clearTimeout(p.timer);
      p.reject(new TargetError(`QMP ${p.command}: ${reason}`));
      this.pending.delete(id);
    }
  }
}

function openSocket(socketPath: string): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const s = net.createConnection({ path: socketPath });
    s.once('connect', () => {
      s.removeListener('error', reject);
      resolve(s);
    });
    s.once('error', reject);
  });
}

/** QMP's event `timestamp` ({seconds, microseconds} of the host's wall clock) in ms, or undefined if absent. */
function eventTime(ts: unknown): number | undefined {
  if (typeof ts !== 'object' || ts === null) return undefined;
  const { seconds, microseconds } = ts as { seconds?: unknown; microseconds?: unknown };
  if (typeof seconds !== 'number' || typeof microseconds !== 'number') return undefined;
  return seconds * 1000 + microseconds / 1000;
}
