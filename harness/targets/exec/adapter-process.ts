// One running adapter program: spawned in the host's process group under the subreaper launcher (launcher.ts), NDJSON
// requests on its stdin, validated replies, heartbeats and kill lists from its stdout. A broken protocol (a crash, a
// line that is not JSON, an invalid message, a reply to nothing, no answer to describe or destroy) is an AdapterError:
// it fails every pending request and is told to the onFault listeners (the host dies of it, exit 5).
import { spawn, type ChildProcess } from 'node:child_process';
import { AdapterError, TargetError } from '../../core/errors.js';
import { quotedExcerpt } from '../../core/visible.js';
import { readProcStat } from '../../core/proc.js';
import { readMessages } from '../../journal/ndjson.js';
import type { AdapterIdentity } from './kill-proof.js';
import type { Launcher } from './launcher.js';
import { AdapterLog } from './adapter-log.js';
import { type AdapterMessage, type HostRequest, parseAdapterMessage } from './messages.js';

type Result = Extract<AdapterMessage, { type: 'result' }>;
type Listener = (msg: AdapterMessage) => void;
/** A request without its id (the connection numbers them). */
export type Request = HostRequest extends infer R ? (R extends { id: number } ? Omit<R, 'id'> : never) : never;

/** Requests whose missing answer is the adapter's fault (a hung boot, restore or checkpoint is the runtime's). */
const BOUNDED_BY_ADAPTER: ReadonlySet<string> = new Set(['describe', 'destroy']);

/**
 * Requests on the session that the runner bounds itself (scenario resumeTimeoutMs, checkpoint.timeoutMs) and judges as
 * the session's failure when they run out while the host answers: no bound of the host's own may end them first as a
 * host error (a restore that never answers is a failed resume, not an internal error).
 */
const RUNNER_BOUNDED: ReadonlySet<string> = new Set(['boot', 'restore', 'checkpoint']);

/** Longest line an adapter may send (docs/target-protocol.md): a heartbeat or a reply is a few hundred bytes. */
export const ADAPTER_LINE_MAX = 1 << 20;

/** How to start an adapter file: scripts through this Node, anything else as an executable. */
export function adapterCommand(file: string): [string, string[]] {
  return /\.(mjs|cjs|js)$/.test(file) ? [process.execPath, [file]] : [file, []];
}

/** A live connection to an adapter program. */
export class AdapterProcess {
  private readonly child: ChildProcess;
  private nextId = 1;
  private readonly pending = new Map<
    number,
    { type: string; resolve: (r: Result) => void; reject: (e: Error) => void }
  >();
  private readonly listeners: Listener[] = [];
  private readonly faultListeners: ((err: AdapterError) => void)[] = [];
  private exitError: Error | null = null;
  /** The last request sent (what a fault's message names when none is pending). */
  private last: { type: string; id: number } | null = null;
  /** Set once destroy was sent or kill() called: the adapter's exit is expected. */
  private ending = false;
  /** The spawned process (the launcher when there is one), for kill-list proofs; null if it did not start. */
  readonly identity: AdapterIdentity | null;
  /** Resolves when the adapter has exited. */
  readonly exited: Promise<void>;
  /** The adapter's share of the host log (its stderr, its log messages), within a byte budget. */
  readonly log = new AdapterLog();

  constructor(
    readonly file: string,
    launcher: Launcher,
    stderr: 'inherit' | 'ignore' = 'inherit',
  ) {
    const [cmd, args] = adapterCommand(file);
    const [exe, argv] = launcher.bin !== null ? [launcher.bin, [cmd, ...args]] : [cmd, args];
    this.child = spawn(exe, argv, { stdio: ['pipe', 'pipe', stderr === 'inherit' ? 'pipe' : 'ignore'] });
    if (this.child.stderr) this.log.follow(this.child.stderr);
    const stat = this.child.pid !== undefined ? readProcStat(this.child.pid) : null;
    this.identity =
      this.child.pid !== undefined && stat !== null
        ? { pid: this.child.pid, startTime: stat.startTime, detachNote: launcher.why }
        : null;
    this.child.stdin!.on('error', () => {}); // a dead adapter's stdin: reported through 'exit'
    void readMessages(
      this.child.stdout!,
      (raw) => this.onMessage(raw),
      (line) => this.fault(`a line that is not a JSON object: ${quotedExcerpt(line)}`),
      {
        maxLineBytes: ADAPTER_LINE_MAX,
        onOverflow: (n) => this.fault(`a line of over ${ADAPTER_LINE_MAX} bytes (${n} seen without a newline)`),
      },
    );
    this.exited = new Promise((resolve) => {
      this.child.once('error', (err) => {
        this.fault(`failed to start: ${err.message}`);
        resolve();
      });
      this.child.once('exit', (code, signal) => {
        const how = `exit code ${String(code)}, signal ${String(signal)}${code === 127 && launcher.bin !== null ? ': it could not be started, see the host log' : ''}`;
        if (this.ending) this.fail(new TargetError(`adapter ${file} exited (${how})`));
        else this.fault(`exited (${how})`);
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

  /** Told once, when the adapter breaks the protocol (whether or not a request is pending). */
  onFault(listener: (err: AdapterError) => void): void {
    this.faultListeners.push(listener);
  }

  /** The adapter and the request a fault happened in, as its message says them. */
  private where(): string {
    const pid = this.child.pid !== undefined ? ` (pid ${this.child.pid})` : '';
    const open = [...this.pending].pop();
    const req =
      open !== undefined
        ? `request ${open[1].type} #${open[0]}`
        : this.last !== null
          ? `after request ${this.last.type} #${this.last.id} was answered`
          : 'before any request';
    return `adapter ${this.file}${pid}, ${req}`;
  }

  /** The adapter broke the protocol: fail every pending request with an AdapterError and tell the fault listeners. */
  fault(what: string): AdapterError {
    const err = new AdapterError(`${this.where()}: ${what}`);
    if (this.exitError !== null) return err; // the first fault is the one reported
    this.fail(err);
    for (const l of this.faultListeners) l(err);
    return err;
  }

  private onMessage(raw: Record<string, unknown>): void {
    const parsed = parseAdapterMessage(raw);
    if (!parsed.ok) {
      const type = typeof raw.type === 'string' ? `${quotedExcerpt(raw.type, 20)} ` : '';
      this.fault(`an invalid ${type}message (${parsed.problem}): ${quotedExcerpt(JSON.stringify(raw))}`);
      return;
    }
    const msg = parsed.msg;
    if ((msg.type === 'result' || msg.type === 'error') && msg.id !== undefined) {
      const waiter = this.pending.get(msg.id);
      if (waiter === undefined) {
        this.fault(
          `a ${msg.type} for id ${msg.id}, which no pending request has: ${quotedExcerpt(JSON.stringify(raw))}`,
        );
        return;
      }
      this.pending.delete(msg.id);
      if (msg.type === 'result') waiter.resolve(msg);
      else waiter.reject(new TargetError(`adapter ${this.file}: ${msg.message}`));
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
    this.last = { type: req.type, id };
    if (req.type === 'destroy') this.ending = true;
    return new Promise<Result>((resolve, reject) => {
      const timer =
        timeoutMs === null
          ? undefined
          : setTimeout(() => {
              const what = `no reply within ${timeoutMs} ms`;
              if (BOUNDED_BY_ADAPTER.has(req.type)) return void this.fault(what); // rejects this request too
              this.pending.delete(id);
              reject(new TargetError(`adapter ${this.file}: no reply to ${req.type} #${id} within ${timeoutMs} ms`));
            }, timeoutMs);
      this.pending.set(id, {
        type: req.type,
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
    this.ending = true;
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGKILL');
    await this.exited;
  }
}
