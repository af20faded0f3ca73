// Real micro-VM targets for the microvm tests: each on its own private work folder under the test's root, heartbeats
// collected as they arrive; a poll for a condition the heartbeats reach (from observed progress, not a sleep); and a
// directory-per-checkpoint test double of the store.
import { createReadStream } from 'node:fs';
import { copyFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Heartbeat } from '../../harness/check/heartbeat.js';
import { createMicrovmTarget } from '../../harness/targets/microvm/target.js';
import type { Target } from '../../harness/targets/target.js';
import type { CheckpointSink, CheckpointSource, PartData } from '../../harness/store/types.js';

/** A made target, the heartbeats it has sent so far, and its work folder. */
export interface MadeTarget {
  target: Target;
  hbs: Heartbeat[];
  workDir: string;
}

/**
 * A maker of microvm targets with `defaults` under each call's options; `root()` is read at each call (tests make it in
 * beforeAll): work folders root/w1, root/w2, ..., one session folder root/session.
 */
export function microvmTargets(
  root: () => string,
  defaults: Record<string, unknown>,
): (options?: Record<string, unknown>) => Promise<MadeTarget> {
  let made = 0;
  return async (options = {}) => {
    const workDir = path.join(root(), `w${++made}`);
    await mkdir(workDir, { mode: 0o700 });
    const sessionDir = path.join(root(), 'session');
    const target = createMicrovmTarget({ workDir, sessionDir, stepMs: 5, options: { ...defaults, ...options } });
    const hbs: Heartbeat[] = [];
    target.onHeartbeat((hb) => hbs.push(hb));
    return { target, hbs, workDir };
  };
}

/** `fn()` once it is defined, polled every 10 ms; throws "timed out waiting for `what`" after `timeoutMs`. */
export async function waitFor<T>(fn: () => T | undefined, timeoutMs: number, what: string): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = fn();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** TEST DOUBLE for the content-addressed store: one directory per checkpoint, one file per part, no dedup, no commit. */
export class DirCheckpoint implements CheckpointSink, CheckpointSource {
  readonly order: string[] = [];
  step = -1;
  constructor(
    readonly dir: string,
    readonly seq = 1,
  ) {}
  private p(name: string): string {
    return path.join(this.dir, encodeURIComponent(name));
  }
  async put(name: string, data: PartData): Promise<void> {
    await mkdir(this.dir, { recursive: true });
    if (data instanceof Uint8Array) await writeFile(this.p(name), data);
    else {
      const chunks: Uint8Array[] = [];
      for await (const c of data) chunks.push(c);
      await writeFile(this.p(name), Buffer.concat(chunks));
    }
    this.order.push(name);
  }
  async putFile(name: string, file: string): Promise<void> {
    await mkdir(this.dir, { recursive: true });
    await copyFile(file, this.p(name));
    this.order.push(name);
  }
  parts(): string[] {
    return [...this.order];
  }
  get(name: string): Promise<Buffer> {
    return readFile(this.p(name));
  }
  async *stream(name: string): AsyncIterable<Buffer> {
    for await (const c of createReadStream(this.p(name))) yield c as Buffer;
  }
  async writeFile(name: string, file: string): Promise<void> {
    await copyFile(this.p(name), file);
  }
}
