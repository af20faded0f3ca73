// The guest-state probe on the process target: its holder runs beside the agent, in the host's process group (a
// SIGKILL of the session kills it, its child and, through PR_SET_PDEATHSIG, its detached grandchild). The process
// target cannot checkpoint a process, so after a restore a new process examines the record (mode `restarted`).
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { parseProbeLine, type ProbeLine } from '../../check/survival.js';
import { readMessages } from '../../journal/ndjson.js';
import { sleep } from '../../core/clock.js';

/** How long a probe's setup or examination may take (it waits at most 2 s per class that can hang). */
const PROBE_TIMEOUT_MS = 60_000;

/** One session's probe: `dir` holds its record (kept across host restarts), `workspace` its unsynced file. */
export class ProcessProbe {
  private holder: ChildProcess | null = null;
  /** The setup or examination under way: stop() waits for it, so nothing it makes outlives the session. */
  private busy: Promise<void> = Promise.resolve();
  private stopped = false;
  private stop$: () => void = () => {};
  private readonly stopping = new Promise<void>((resolve) => (this.stop$ = resolve));

  constructor(
    private readonly binary: string,
    private readonly dir: string,
    private readonly workspace: string,
    private readonly emit: (line: ProbeLine) => void,
    /** Whether the session is in a checkpoint pause: a spawn blocks the host's loop, so none starts in one. */
    private readonly pausing: () => boolean = () => false,
    /** Seconds after each resume to read the wall clock again (`probe clock`; targetOptions.probeClockAfter). */
    private readonly clockAfter: readonly number[] = [],
  ) {}

  private readonly later: NodeJS.Timeout[] = [];

  /** Whether to go on with the next process: false once stopped; waits out a checkpoint pause first. */
  private async clear(): Promise<boolean> {
    while (!this.stopped && this.pausing()) await Promise.race([sleep(1), this.stopping]);
    return !this.stopped;
  }

  /** Start a holder (`probe setup`) in the background; its ready (or error) line is emitted. */
  start(): void {
    this.busy = this.setup();
  }

  /** After a restore, in the background: examine the previous holder's record, remove its files, set up anew. */
  resumed(): void {
    const at = Date.now();
    this.busy = this.resume().then(() => this.askLater(at));
  }

  /** The later wall-clock readings, each from a new process at its moment (not before the examination's end). */
  private askLater(resumedAt: number): void {
    for (const s of this.clockAfter) {
      const read = async (): Promise<void> => {
        if (!(await this.clear())) return;
        const args = ['clock', this.dir, '--host-ms', String(Date.now()), '--after', String(s)];
        this.emit(this.parsed(await this.run(args)));
      };
      this.later.push(setTimeout(() => void read(), Math.max(0, resumedAt + s * 1000 - Date.now())));
    }
  }

  /** One probe command's first output line, JSON-parsed (a string when it is not JSON: the error to report). */
  private async run(args: string[]): Promise<unknown> {
    const out = await new Promise<string>((resolve) =>
      execFile(this.binary, args, { timeout: PROBE_TIMEOUT_MS, killSignal: 'SIGKILL' }, (err, stdout) =>
        resolve(stdout || (err?.message ?? '')),
      ),
    );
    const first = out.split('\n')[0] ?? '';
    try {
      return JSON.parse(first) as unknown;
    } catch {
      return { probe: 1, event: 'error', message: `probe ${args[0] ?? ''}: ${first}` };
    }
  }

  private async setup(): Promise<void> {
    if (!(await this.clear())) return;
    const holder = spawn(this.binary, ['setup', this.dir, '--workspace', this.workspace], {
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    this.holder = holder;
    holder.on('error', (err) => this.emit({ event: 'error', message: `probe: ${err.message}` }));
    await new Promise<void>((resolve) => {
      const done = (): void => resolve();
      holder.once('exit', done);
      void readMessages(holder.stdout, (msg) => {
        const line = this.parsed(msg);
        this.emit(line);
        if (line.event !== 'examined') done();
      });
    });
  }

  private async resume(): Promise<void> {
    if (!existsSync(path.join(this.dir, 'probe.rec'))) {
      this.emit({ event: 'error', message: `probe: no record in ${this.dir} (no setup before the checkpoint)` });
    } else if (await this.clear()) {
      this.emit(this.parsed(await this.run(['examine', this.dir, '--host-ms', String(Date.now())])));
      if (await this.clear()) await this.cleanup();
    }
    await this.setup();
  }

  /** Once the work under way is done: stop the holder, remove the files it made outside its folder (/tmp, /dev/shm). */
  async stop(): Promise<void> {
    this.stopped = true;
    this.stop$();
    for (const t of this.later.splice(0)) clearTimeout(t);
    await this.busy;
    this.holder?.stdin?.end();
    this.holder?.kill('SIGKILL');
    this.holder = null;
    await this.cleanup();
  }

  /** Remove the record's files outside its folder; not spawnSync: that would block the host's loop, pauses included. */
  private async cleanup(): Promise<void> {
    if (!existsSync(path.join(this.dir, 'probe.rec'))) return;
    await new Promise<void>((resolve) =>
      execFile(this.binary, ['cleanup', this.dir], { timeout: PROBE_TIMEOUT_MS, killSignal: 'SIGKILL' }, () =>
        resolve(),
      ),
    );
  }

  private parsed(msg: unknown): ProbeLine {
    const line = parseProbeLine(msg);
    return typeof line === 'string' ? { event: 'error', message: `probe: ${line}` } : line;
  }
}
