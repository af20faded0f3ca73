// The deterministic agent workload contract, shared by every target's agent and by the checker.
// After step N: memory chain m_N, tool chain t_N, and a workspace log.txt holding one line per step.
import { createHash } from 'node:crypto';

export function sha256hex(s: string | Uint8Array): string {
  return createHash('sha256').update(s).digest('hex');
}

export const MEM_SEED = sha256hex('mem:0');
export const TOOL_SEED = sha256hex('tool:0');

/** One link of a chain: c_N = sha256hex(c_{N-1} + ":" + N). */
export function nextLink(prev: string, step: number): string {
  return sha256hex(`${prev}:${step}`);
}

/** The workspace line written at step N (1-based). */
export function logLine(step: number, memLink: string): string {
  return `step ${step} ${memLink.slice(0, 16)}\n`;
}

/** Expected state after step N, computed incrementally; reuse one instance to check many steps in order. */
export class WorkloadModel {
  private step = 0;
  private mem = MEM_SEED;
  private tool = TOOL_SEED;
  private readonly fsHash = createHash('sha256');
  private readonly fsAt = new Map<number, string>();
  private readonly memAt = new Map<number, string>([[0, MEM_SEED]]);
  private readonly toolAt = new Map<number, string>([[0, TOOL_SEED]]);

  constructor() {
    this.fsAt.set(0, this.fsHash.copy().digest('hex'));
  }

  private advanceTo(n: number): void {
    while (this.step < n) {
      this.step++;
      this.mem = nextLink(this.mem, this.step);
      this.tool = nextLink(this.tool, this.step);
      this.fsHash.update(logLine(this.step, this.mem));
      this.memAt.set(this.step, this.mem);
      this.toolAt.set(this.step, this.tool);
      this.fsAt.set(this.step, this.fsHash.copy().digest('hex'));
    }
  }

  /** Expected digests after step n. */
  expected(n: number): { fs: string; mem: string; tool: string } {
    if (!Number.isInteger(n) || n < 0) throw new RangeError(`step must be a non-negative integer, got ${n}`);
    this.advanceTo(n);
    return { fs: this.fsAt.get(n)!, mem: this.memAt.get(n)!, tool: this.toolAt.get(n)! };
  }
}
