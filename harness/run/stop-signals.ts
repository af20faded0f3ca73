// How a run is stopped from outside: the first SIGINT (Ctrl-C) or SIGTERM (Kubernetes eviction, a CI deadline) asks
// the runner to stop after the current cycle, so run-end is journaled and the report written; a second one aborts now.

/** The signals that stop a run. */
const STOP_SIGNALS = ['SIGINT', 'SIGTERM'] as const;

/** The flag the runner polls between cycles. */
export interface StopFlag {
  requested: boolean;
}

/**
 * Listen for SIGINT and SIGTERM: the first sets `stop.requested` and says so on stderr (`say`), the second calls
 * `abort` (which ends the process with EXIT.aborted). Returns the function that removes the listeners.
 */
export function onStopSignals(stop: StopFlag, abort: () => void, say: (line: string) => void): () => void {
  const handler = (signal: NodeJS.Signals): void => {
    if (stop.requested) {
      say(`${signal} again: aborting now (exit 130; "soak run --resume <run folder>" picks the run up)`);
      abort();
      return;
    }
    stop.requested = true;
    say(`${signal}: stopping after the current cycle, then writing run-end and the report (send it again to abort)`);
  };
  for (const s of STOP_SIGNALS) process.on(s, handler);
  return () => {
    for (const s of STOP_SIGNALS) process.off(s, handler);
  };
}
