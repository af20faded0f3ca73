// One session's view of the run's journal (scenario sessions > 1, issue 36): every event it appends carries its
// session index (session 0 writes none, as a one-session run does), through the run's one writer, so times stay in
// order and group commit stays one. Its runner loop's run-end and close are kept for the run (sessions.ts writes the
// one run-end); a session other than 0 journals no machine-load (session 0's sampler measures the one host).
import type { EventInput, RunEndEvent } from '../journal/events.js';
import type { AppendOptions, JournalWriter } from '../journal/writer.js';

/** What one session's loop ended with (its would-be run-end), once it ended. */
export interface SessionEnd {
  status: RunEndEvent['status'];
  cycles: number;
  reason?: string;
}

/** A writer for session `session` over the run's `journal`; `ended` receives its run-end instead of the journal. */
export function sessionJournal(journal: JournalWriter, session: number, ended: (e: SessionEnd) => void): JournalWriter {
  const append = (event: EventInput, opts?: AppendOptions) => {
    if (event.type === 'run-end') {
      ended({
        status: event.status,
        cycles: event.cycles,
        ...(event.reason !== undefined ? { reason: event.reason } : {}),
      });
      return { schemaVersion: 1, t: 0, ...event } as ReturnType<JournalWriter['append']>;
    }
    if (event.type === 'machine-load' && session > 0)
      return { schemaVersion: 1, t: 0, ...event } as ReturnType<JournalWriter['append']>;
    return journal.append(session === 0 ? event : { ...event, session }, opts);
  };
  // A proxy, not a copy: every other member (durable(), file) is the run's writer's own.
  return new Proxy(journal, {
    get(target, prop) {
      if (prop === 'append') return append;
      if (prop === 'close') return () => {};
      const value: unknown = Reflect.get(target, prop);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}
