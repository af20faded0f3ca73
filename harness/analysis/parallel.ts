// Folding a long journal on several threads: the file is cut into byte ranges at newlines, this thread folds the first
// range while worker threads fold the others, and their partial folds are appended in file order. The result is the
// one a single pass gives: bytes are still summed in journal order, a bad line is still named by its line number in
// the whole file, and each range's protocol part is judged after the ranges before it (a damaged journal is refused).
import { statSync } from 'node:fs';
import os from 'node:os';
import { Worker } from 'node:worker_threads';
import { AnalysisLineReader } from './fastpath/line-reader.js';
import { ranSeveralSessions } from './journal-head.js';
import type { PartialFold, RunAccumulator } from './accumulator.js';
import { JournalLineError } from '../core/errors.js';
import { JournalProtocol, type ProtocolPart } from '../journal/protocol.js';
import { splitAtNewlines, streamJournal, type ByteRange, type StreamedJournal } from '../journal/reader.js';

export interface FoldOptions {
  /** Read the runner's flat events straight from their bytes (false: JSON.parse every line, the reference path). */
  fastPath: boolean;
  /** Journals at least this long are split over threads; shorter ones are read on this thread alone. */
  parallelFromBytes: number;
  /** Threads to use at most, this one included. */
  threads: number;
}

export const FOLD_DEFAULTS: FoldOptions = {
  fastPath: true,
  parallelFromBytes: 64 << 20,
  threads: Math.min(4, os.availableParallelism()),
};

/** What a worker is asked to fold. */
export interface RangeTask {
  file: string;
  range: ByteRange;
  fastPath: boolean;
}

/** What a worker sends back: its fold, protocol part and line count, or the bad line (numbered within its range). */
export type RangeResult =
  | { ok: true; fold: PartialFold; protocol: ProtocolPart; lines: number; tornTail: string | null }
  | { ok: false; badLine: { lineNo: number; problem: string } | null };

/** Fold `task.range` of a journal (all of it without one) into `acc`, on this thread, its events held to `protocol`. */
export function foldRange(
  acc: RunAccumulator,
  task: Omit<RangeTask, 'range'> & { range?: ByteRange },
  protocol: JournalProtocol,
): StreamedJournal {
  const fast = task.fastPath ? new AnalysisLineReader(acc).fastLine : null;
  return streamJournal(task.file, (e) => acc.add(e), { fast, ...(task.range ? { range: task.range } : {}), protocol });
}

/**
 * Fold one journal file into `acc` (after any runs already in it); the dropped torn last line, if any. A journal that
 * breaks the protocol (protocol.ts) is a JournalDamagedError naming its first error, whichever thread read it.
 */
export async function foldJournal(
  acc: RunAccumulator,
  file: string,
  options: FoldOptions = FOLD_DEFAULTS,
): Promise<string | null> {
  const { fastPath } = options;
  const protocol = new JournalProtocol(file);
  const long = options.threads > 1 && statSync(file).size >= options.parallelFromBytes && !ranSeveralSessions(file);
  const ranges = long ? splitAtNewlines(file, options.threads) : [];
  if (ranges.length < 2) {
    const { tornTail } = foldRange(acc, { file, fastPath }, protocol);
    protocol.assertSound();
    return tornTail;
  }

  const workers = ranges.slice(1).map((range) => new RangeWorker({ file, range, fastPath }));
  /** Fold a range on this thread, numbering a bad line within the whole file. */
  const here = (range: ByteRange, linesBefore: number, held: JournalProtocol): StreamedJournal => {
    try {
      return foldRange(acc, { file, range, fastPath }, held);
    } catch (err) {
      throw err instanceof JournalLineError ? new JournalLineError(file, linesBefore + err.lineNo, err.problem) : err;
    }
  };
  try {
    let { lines, tornTail } = here(ranges[0]!, 0, protocol);
    for (const [i, w] of workers.entries()) {
      const r = await w.result;
      if (!r.ok && r.badLine !== null) throw new JournalLineError(file, lines + r.badLine.lineNo, r.badLine.problem);
      // A worker that failed otherwise (an event analysis cannot fold, a thread that died): fold its range here,
      // which fails exactly as one thread would, or succeeds.
      const own = r.ok ? null : new JournalProtocol(file, { part: true });
      const part = r.ok ? r : here(ranges[i + 1]!, lines, own!);
      if (r.ok) acc.append(r.fold);
      protocol.append(r.ok ? r.protocol : own!.part(), lines);
      lines += part.lines;
      tornTail = part.tornTail;
    }
    protocol.assertSound();
    return tornTail;
  } finally {
    for (const w of workers) await w.stop();
  }
}

/** One worker thread folding one range; `result` settles with what it posts (or an error if it dies first). */
class RangeWorker {
  private readonly worker: Worker;
  readonly result: Promise<RangeResult>;

  constructor(task: RangeTask) {
    this.worker = new Worker(new URL('./worker.js', import.meta.url), { workerData: task });
    this.result = new Promise<RangeResult>((resolve) => {
      this.worker.once('message', resolve);
      this.worker.once('error', () => resolve({ ok: false, badLine: null }));
      this.worker.once('exit', () => resolve({ ok: false, badLine: null }));
    });
  }

  /** Make sure the thread is gone (it ends by itself after posting its result). */
  async stop(): Promise<void> {
    await this.worker.terminate();
  }
}
