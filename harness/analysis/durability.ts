// Durability measured per fault kind (issue 17): each cycle's fault (a 'fault' event, or a plain SIGKILL without one)
// joined with its outcome, as trials, outcomes and a Wilson 95% interval of resumed-and-verified among judged cycles.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { CauseCode, JournalEvent } from '../journal/events.js';
import type { FaultKind } from '../scenario/scenario.js';
import { sessionCycleKey } from '../journal/session-key.js';
import { wilson, type Interval } from '../stats/wilson.js';
import { JOURNAL_FILE } from './load-runs.js';

/** One fault kind's row of the durability table. */
export interface DurabilityRow {
  kind: FaultKind;
  /** Cycles that ended (ok + fail + indeterminate). */
  trials: number;
  ok: number;
  fail: number;
  indeterminate: number;
  /** The indeterminate cycles by cause (an injected ENOSPC or EIO shows as its errno). */
  causes: Partial<Record<CauseCode, number>>;
  /** Wilson 95% interval of ok among judged cycles (ok + fail); null when none was judged. */
  interval: Interval | null;
}

/** The rows of one or more journals' events (each iterable one run); empty when no cycle had a fault but SIGKILL. */
export function durabilityRows(runs: Iterable<Iterable<JournalEvent>>): DurabilityRow[] {
  const rows = new Map<FaultKind, DurabilityRow>();
  let faulted = false;
  for (const events of runs) {
    const kindOf = new Map<number, FaultKind>();
    const outcomes = new Map<number, JournalEvent & { type: 'cycle' }>();
    for (const e of events) {
      // keyed by session and cycle: a run of several sessions repeats each cycle id in every session
      const key = 'cycle' in e ? sessionCycleKey(e.session, e.cycle) : 0;
      if (e.type === 'fault') kindOf.set(key, e.kind);
      else if (e.type === 'cycle') outcomes.set(key, e); // the last outcome of a cycle id wins (a resumed run)
    }
    if (kindOf.size > 0) faulted = true;
    for (const [key, c] of outcomes) {
      const kind = kindOf.get(key) ?? 'sigkill';
      const row = rows.get(kind) ?? { kind, trials: 0, ok: 0, fail: 0, indeterminate: 0, causes: {}, interval: null };
      row.trials++;
      row[c.outcome]++;
      if (c.outcome === 'indeterminate') {
        const code = c.cause?.code ?? 'host-exited';
        row.causes[code] = (row.causes[code] ?? 0) + 1;
      }
      rows.set(kind, row);
    }
  }
  if (!faulted) return [];
  return [...rows.values()]
    .sort((a, b) => a.kind.localeCompare(b.kind))
    .map((r) => ({ ...r, interval: wilson(r.ok, r.ok + r.fail) }));
}

/** The fault and cycle events of run folder `dir`'s journal (other lines are not parsed; a torn last line is skipped). */
export function faultEvents(dir: string): JournalEvent[] {
  const out: JournalEvent[] = [];
  for (const line of readFileSync(path.join(dir, JOURNAL_FILE), 'utf8').split('\n')) {
    if (!line.includes('"type":"fault"') && !line.includes('"type":"cycle"')) continue;
    try {
      out.push(JSON.parse(line) as JournalEvent);
    } catch {
      // a torn last line: the analysis reports it
    }
  }
  return out;
}
