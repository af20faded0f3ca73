// What each exit code means (the codes: EXIT in errors.ts): the one source of `soak --help`'s epilogue and of README's
// "Exit codes" table (test/core/exit-codes.test.ts fails when the README differs; UPDATE_README=1 rewrites it).
import { EXIT } from './errors.js';

/** One code's documentation: `meaning` in a few words (the --help epilogue), `when` what makes soak exit with it. */
export interface ExitDoc {
  meaning: string;
  when: string;
}

/** Every code of EXIT, documented (a code added to EXIT without a line here does not compile). */
export const EXIT_DOCS: Readonly<Record<keyof typeof EXIT, ExitDoc>> = {
  pass: {
    meaning: 'pass',
    when: 'every gate passed (for `store verify`: no problem found; for `store gc`: done)',
  },
  fail: {
    meaning: 'a gate failed or a check found a violation',
    when: '`check` re-judged a cycle differently than the run did (or the run has violations), `compare` found a regression, `store verify` found a corrupt or missing chunk (by checkpoint and part) or a manifest or pack index that fails its check (by file), `store gc` met a corrupt chunk it had to keep or a manifest or pack index that fails its check (it stops before deleting anything and names the file), or a journal has a corrupt line before its last (the message names the line)',
  },
  insufficient: {
    meaning: 'unknown / insufficient data',
    when: 'some gate is inconclusive at 95% (its point estimate is on one side of the bar, its one-sided 95% bounds reach the other), inconclusive (saturated) (a timing gate that failed on a saturated machine, see "Machine load") or has insufficient data (fewer samples than its minimum n), and none failed; a negative control with no cycle; `check` on a journal with no observations recorded (written before they were journaled) and no journaled failure',
  },
  badInput: {
    meaning: 'bad input or usage',
    when: "malformed scenario or gate file, unknown target, missing run folder, a `soak report --baseline` folder whose `summary.json` or `cycles.csv` is missing or malformed (named with the line or field), `store gc` on a store any live process holds (a soak's runner for its whole run, restores included; a session host; `store verify`/`stats`; another gc) or whose `packs/` is shared (a session's store in a `--sessions N` run), `merge` given overlapping sources (one run or shard twice, two unsharded runs of one seed) without `--force`, `soak run --resume` of a run folder a live runner holds, a damaged journal (an event before run-start or after run-end, a cycle's outcome twice, a time going back, an event of a session the run did not run: `check` names each by line, every other reader the first); the message names the file and field, the line, or the PID",
  },
  internal: {
    meaning: 'internal error',
    when: 'the message is one line (`--debug` adds the stack trace and causes); also a full or failing disk the harness itself writes to: `soak: no space left on device (ENOSPC) writing <path>` (the run is journaled `aborted`; nothing committed is damaged)',
  },
  adapterFault: {
    meaning: 'adapter fault (an exec adapter broke the target protocol)',
    when: "it failed to start, exited, printed a line that is not JSON, sent an invalid message or a malformed reply, spoke another protocol version, declared a kill list the host cannot prove is its own, or did not answer `describe`/`destroy` in time; the message names the adapter, the request and the answer's first bytes (escaped). A run with any adapter fault is never a pass: its verdict is `adapter-fault` unless checker violations make it a fail (1); at the first boot the run ends (`run-end` aborted, reason `adapter fault: ...`). `soak target check` exits 5 too",
  },
  aborted: {
    meaning: 'aborted (a second Ctrl-C or SIGTERM)',
    when: '`soak run` only; the first Ctrl-C or SIGTERM stops the run cleanly, with the exit code of its verdict',
  },
};

/** The codes in ascending order with their documentation. */
function documented(): Array<[number, ExitDoc]> {
  return (Object.keys(EXIT) as Array<keyof typeof EXIT>)
    .map((k): [number, ExitDoc] => [EXIT[k], EXIT_DOCS[k]])
    .sort((a, b) => a[0] - b[0]);
}

/** `soak --help`'s epilogue: every code and its meaning on one line. */
export function exitEpilog(): string {
  return `Exit codes: ${documented()
    .map(([code, d]) => `${code} ${d.meaning}`)
    .join(', ')}.`;
}

/** README's "Exit codes" table (Markdown), a row per code: its meaning, then when soak exits with it. */
export function exitCodesTable(): string {
  const rows = documented().map(([code, d]) => `| ${code} | ${d.meaning}: ${d.when} |`);
  return ['| code | meaning |', '| ---- | ------- |', ...rows].join('\n');
}
