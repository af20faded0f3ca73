// Worker threads that decompress and hash-check stored blocks for a read (block-job.ts), so a restore's decompression
// and hashing run beside the thread that assembles and sends the bytes. One small pool per process, started on first use.
import crypto from 'node:crypto';
import fs from 'node:fs';
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import zlib from 'node:zlib';
import { type BlockJob, type BlockResult, makeTools, runBlockJob } from './block-job.js';
import { transferList } from './job-wire.js';
import { lz4Decode } from './lz4-block.js';
import { createRequire } from 'node:module';

/** SOAK_STORE_LZ4=js: decode LZ4 blocks with the JS decoder only (lz4-block.ts), not lz4-napi's native one. */
export const STORE_LZ4_ENV = 'SOAK_STORE_LZ4';

/** lz4-napi's module file, required by the worker threads by path (their script is evaluated, not a file). */
const LZ4_NAPI = createRequire(import.meta.url).resolve('lz4-napi');

/** The native decoder over `req` (a module loader), unless `off` (SOAK_STORE_LZ4=js) or it does not load. */
function nativeLz4(
  req: (id: string) => unknown,
  file: string,
  off: boolean,
): ((src: Uint8Array) => Uint8Array) | undefined {
  if (off) return undefined;
  try {
    const u = (req(file) as { uncompressSync: (b: Buffer) => Buffer }).uncompressSync;
    return (s) => u(Buffer.from(s.buffer, s.byteOffset, s.byteLength));
  } catch {
    return undefined;
  }
}

/** Environment variable: worker threads for store reads (0: decompress and hash on the reading thread). */
export const READ_THREADS_ENV = 'SOAK_STORE_READ_THREADS';

/** Threads to use: the variable when it is a number, else min(2, cores). */
export function readThreads(env: NodeJS.ProcessEnv = process.env): number {
  const set = Number(env[READ_THREADS_ENV]);
  if (env[READ_THREADS_ENV] !== undefined && Number.isInteger(set) && set >= 0) return Math.min(set, 8);
  return Math.min(2, availableParallelism());
}

// The worker's script: runBlockJob, makeTools, lz4Decode and transferList (job-wire.ts) by their own source, over
// Node's modules. Evaluated (not a file), so it runs the same from dist/ and from the TypeScript sources the tests
// load. Blocks in the job's shared buffer go back as places in it; any other goes back moved, not copied.
const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const runBlockJob = (${runBlockJob.toString()});
const lz4Decode = (${lz4Decode.toString()});
const transferList = (${transferList.toString()});
const lz4Native = (${nativeLz4.toString()})(require, ${JSON.stringify(LZ4_NAPI)}, process.env[${JSON.stringify(STORE_LZ4_ENV)}] === 'js');
const tools = (${makeTools.toString()})({ fs: require('node:fs'), zlib: require('node:zlib'), crypto: require('node:crypto'), lz4Decode, lz4Native });
parentPort.on('message', (job) => {
  const r = runBlockJob(job, tools);
  parentPort.postMessage(r, transferList(r));
});
`;

/** The tools of a pool without threads (reads, inflates and hashes on the calling thread). */
const INLINE_TOOLS = makeTools({
  fs,
  zlib,
  crypto,
  lz4Decode,
  lz4Native: nativeLz4(createRequire(import.meta.url), LZ4_NAPI, process.env[STORE_LZ4_ENV] === 'js'),
});

interface Waiting {
  resolve(r: BlockResult): void;
  reject(err: unknown): void;
}

/** One worker and the jobs it owes; referenced (keeping the process alive) only while it owes one. */
class PoolWorker {
  private readonly worker = new Worker(WORKER_SOURCE, { eval: true });
  private readonly waiting = new Map<number, Waiting>();

  constructor() {
    this.worker.unref();
    this.worker.on('message', (r: BlockResult) => {
      const w = this.waiting.get(r.id);
      this.waiting.delete(r.id);
      if (this.waiting.size === 0) this.worker.unref();
      w?.resolve(r);
    });
    this.worker.on('error', (err) => this.failAll(err));
    this.worker.on('exit', (code) => this.failAll(new Error(`a store read worker exited (code ${code})`)));
  }

  get load(): number {
    return this.waiting.size;
  }

  run(job: BlockJob): Promise<BlockResult> {
    return new Promise((resolve, reject) => {
      this.waiting.set(job.id, { resolve, reject });
      this.worker.ref();
      this.worker.postMessage(job);
    });
  }

  private failAll(err: unknown): void {
    for (const w of this.waiting.values()) w.reject(err);
    this.waiting.clear();
  }
}

/** Runs block jobs on worker threads (the least busy one), or on this thread when it has none. */
export class ReadPool {
  private readonly workers: PoolWorker[];
  private nextId = 0;

  constructor(readonly threads: number) {
    this.workers = Array.from({ length: threads }, () => new PoolWorker());
  }

  /** Read, decompress and check a job's blocks (their plain bytes into `job.out` as far as they fit). */
  run(work: Omit<BlockJob, 'id'>): Promise<BlockResult> {
    const job: BlockJob = { ...work, id: this.nextId++ };
    if (this.workers.length === 0) return Promise.resolve(runBlockJob(job, INLINE_TOOLS));
    const w = this.workers.reduce((a, b) => (b.load < a.load ? b : a));
    return w.run(job);
  }
}

let shared: ReadPool | undefined;
const inline = new ReadPool(0);

/** Parts from this size are read on the worker threads; a smaller one on the reading thread (no thread start-up). */
export const POOL_FROM = 8 << 20;

/**
 * The pool for reading a part of `size` bytes: the process's worker pool (started on first use with readThreads()
 * workers; idle workers keep no process alive) for a big part, the reading thread for a small one.
 */
export function readPool(size = POOL_FROM): ReadPool {
  return size < POOL_FROM ? inline : (shared ??= new ReadPool(readThreads()));
}
