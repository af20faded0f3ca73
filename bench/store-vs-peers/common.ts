// store-vs-peers: what every part of the bench shares: its error (with an exit code), its log line, the run of a peer
// tool (argument array, bounded time), and the figures' formatting.
import { execa } from 'execa';

const SUBPROCESS_TIMEOUT_MS = 30 * 60_000;

/** A failure with the bench's exit code for it (3: usage or a missing peer tool). */
export class BenchError extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
  }
}

/** One progress or failure line on stderr (stdout carries the result). */
export const log = (line: string): void => void process.stderr.write(`${line}\n`);
/** Bytes in MiB, one decimal. */
export const mib = (b: number): string => (b / 2 ** 20).toFixed(1);
/** Seconds since `t0` (process.hrtime.bigint()). */
export const elapsedS = (t0: bigint): number => Number(process.hrtime.bigint() - t0) / 1e9;

/** Run a tool with an argument array (no shell), within the bench's subprocess bound; its stdout. */
export const run = async (
  file: string,
  args: string[],
  opts: { cwd?: string; env?: Record<string, string> } = {},
): Promise<string> => (await execa(file, args, { ...opts, timeout: SUBPROCESS_TIMEOUT_MS, stdin: 'ignore' })).stdout;
