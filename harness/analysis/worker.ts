// A worker thread of parallel.ts: folds one byte range of a journal and posts its partial fold back, its
// typed columns transferred rather than copied.
import { parentPort, workerData } from 'node:worker_threads';
import { foldRange, type RangeResult, type RangeTask } from './parallel.js';
import { RunAccumulator, type PartialFold } from './accumulator.js';
import { JournalLineError } from '../core/errors.js';
import { JournalProtocol } from '../journal/protocol.js';

/** The buffers behind every typed column of a fold (each column has its own). */
function buffersOf(fold: PartialFold): ArrayBuffer[] {
  const outcomes = Object.values(fold.outcomes).map((c) => (c instanceof Float64Array ? c : c.codes));
  const columns = [...outcomes, ...Object.values(fold.checkpoints), fold.startedCycles, fold.boots, fold.restores];
  return [...new Set(columns.filter((c) => ArrayBuffer.isView(c)).map((c) => c.buffer as ArrayBuffer))];
}

function fold(task: RangeTask): RangeResult {
  try {
    const acc = new RunAccumulator();
    const protocol = new JournalProtocol(task.file, { part: true });
    const { lines, tornTail } = foldRange(acc, task, protocol);
    return { ok: true, fold: acc.partial(), protocol: protocol.part(), lines, tornTail };
  } catch (err) {
    return {
      ok: false,
      badLine: err instanceof JournalLineError ? { lineNo: err.lineNo, problem: err.problem } : null,
    };
  }
}

const result = fold(workerData as RangeTask);
parentPort!.postMessage(
  result,
  result.ok ? [...buffersOf(result.fold), result.protocol.outcomes.dense.buffer as ArrayBuffer] : [],
);
