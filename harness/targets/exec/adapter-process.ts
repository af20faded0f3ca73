// One running adapter program: spawned in the host's process group, NDJSON requests on its stdin, validated replies,
// heartbeats and kill lists from its stdout; a dead adapter fails every pending request.
import { spawn, type ChildProcess } from 'node:child_process';
import { TargetError } from '../../core/errors.js';
import { readMessages } from '../../journal/ndjson.js';
import { type AdapterMessage, type HostRequest, parseAdapterMessage } from './messages.js';

type Result = Extract<AdapterMessage, { type: 'result' }>;
type Listener = (msg: AdapterMessage) => void;
/** A request without its id (the connection numbers them). */
export type Request = HostRequest extends infer R ? (R extends { id: number } ? Omit<R, 'id'> : never) : never;

/**
 * Requests on the session that the runner bounds itself (scenario resumeTimeoutMs, checkpoint.timeoutMs) and judges as
 * the session's failure when they run out while the host answers: no bound of the host's own may end them first as a
 * host error (a restore that never answers is a failed resume, not an internal error).
 */
const RUNNER_BOUNDED: ReadonlySet<string> = new Set(['boot', 'restore', 'checkpoint']);

/** How to start an adapter file: scripts through this Node, anything else as an executable. */
export function adapterCommand(file: string): [string, string[]] {
  return /\.(mjs|cjs|js)$/.test(file) ? [process.execPath, [file]] : [file, []];
}

/** A live connection to an adapter program. */
export class AdapterProcess {
  private readonly child: ChildProcess;
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (r: Result) => void; reject: (e: Error) => void }>();
  private readonly listeners: Listener[] = [];
  private exitError: Error | null = null;
  /** Resolves when the adapter has exited. */
  readonly exited: Promise<void>;

  constructor(
    readonly file: string,
    stderr: 'inherit' | 'ignore' = 'inherit',
  ) {
    const [cmd, args] = adapterCommand(file);
    this.child = spawn(cmd, args, { stdio: ['pipe', 'pipe', stderr] });
    this.child.stdin!.on('error', () => {}); // a dead adapter's stdin: reported through 'exit'
    void readMessages(
      this.child.stdout!,
      (raw) => this.onMessage(raw),
      (line) => process.stderr.write(`adapter ${file}: not a JSON line: ${line.slice(0, 200)}\n`),
    );
    this.exited = new Promise((resolve) => {
      this.child.once('error', (err) => this.fail(new TargetError(`adapter ${file} failed to start: ${err.message}`)));
      this.child.once('exit', (code, signal) => {
        this.fail(new TargetError(`adapter ${file} exited (exit code ${String(code)}, signal ${String(signal)})`));
        resolve();
      });
    });
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  /** Every valid message that is not a reply (heartbeats, kill lists, logs). */
  onMessageOf(listener: Listener): void {
    this.listeners.push(listener);
  }

  private onMessage(raw: Record<string, unknown>): void {
    const parsed = parseAdapterMessage(raw);
    if (!parsed.ok) {
      this.fail(new TargetError(`adapter ${this.file}: invalid ${String(raw.type)} message: ${parsed.problem}`));
      return;
    }
    const msg = parsed.msg;
    if ((msg.type === 'result' || msg.type === 'error') && msg.id !== undefined) {
      const waiter = this.pending.get(msg.id);
      this.pending.delete(msg.id);
      if (msg.type === 'result') waiter?.resolve(msg);
      else waiter?.reject(new TargetError(`adapter ${this.file}: ${msg.message}`));
      return;
    }
    if (msg.type === 'error') this.fail(new TargetError(`adapter ${this.file}: ${msg.message}`));
    for (const l of this.listeners) l(msg);
  }

  private fail(err: Error): void {
    this.exitError ??= err;
    for (const w of this.pending.values()) w.reject(err);
    this.pending.clear();
  }

  /** Send a request and wait for its reply, at most `timeoutMs` (null: no bound of its own, see RUNNER_BOUNDED). */
  request(req: Request, timeoutMs: number | null = RUNNER_BOUNDED.has(req.type) ? null : 120_000): Promise<Result> {
    if (this.exitError) return Promise.reject(this.exitError);
    const id = this.nextId++;
    return new Promise<Result>((resolve, reject) => {
      const timer =
        timeoutMs === null
          ? undefined
          : setTimeout(() => {
              this.pending.delete(id);
              reject(new TargetError(`adapter ${this.file}: no reply to ${req.type} within ${timeoutMs} ms`));
            }, timeoutMs);
      this.pending.set(id, {
        resolve: (r) => {
          clearTimeout(timer);
          resolve(r);
        },
        reject: (e) => {
          clearTimeout(timer);
          reject(e);
        },
      });
      this.child.stdin!.write(`${JSON.stringify({ ...req, id })}\n`);
    });
  }

  /** Send a notification (no reply). */
  notify(msg: { type: 'full' }): void {
    if (!this.exitError) this.child.stdin!.write(`${JSON.stringify(msg)}\n`);
  }

  /** SIGKILL the adapter and wait for it. */
  async kill(): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGKILL');
    await this.exited;
  }
}
