// The clone-entropy class: two sessions restored from one checkpoint must read different /dev/urandom bytes, different
// getrandom bytes and make different UUIDv4s. Each probe reports fingerprints of what it read (probe-examine.c); one
// session cannot judge it, so this compares the session's and its clone's and gives the class its status.
import type { Observation, ProbeReport } from './survival.js';

const SOURCES = ['urandom', 'getrandom', 'uuid'] as const;
const DIGESTS = /^urandom ([0-9a-f]{16}) getrandom ([0-9a-f]{16}) uuid ([0-9a-f]{16}):/;

/** The three fingerprints of one examination, or why there are none (the observation's own reason). */
function digestsOf(r: ProbeReport): string[] | string {
  const o = r.observations.find((x) => x.class === 'clone-entropy');
  if (o === undefined) return 'no clone-entropy observation';
  const m = DIGESTS.exec(o.detail);
  return m === null ? o.detail : m.slice(1, 4);
}

/** The class as judged from the session and its clone: survives when all three sources differ, changed otherwise. */
export function compareCloneEntropy(session: ProbeReport, clone: ProbeReport): Observation {
  const [a, b] = [digestsOf(session), digestsOf(clone)];
  const na = (detail: string): Observation => ({ class: 'clone-entropy', status: 'not-applicable', detail });
  if (typeof a === 'string') return na(`the session: ${a}`);
  if (typeof b === 'string') return na(`the clone: ${b}`);
  const same = SOURCES.filter((_, i) => a[i] === b[i]);
  if (same.length === 0)
    return { class: 'clone-entropy', status: 'survives', detail: 'session and clone read different bytes', value: 0 };
  return {
    class: 'clone-entropy',
    status: 'changed',
    detail: `session and clone read the same ${same.join(', ')} (${same.length} of 3 sources repeated)`,
    value: same.length,
  };
}

/** The session's report with its clone-entropy observation replaced by `o`. */
export function withCloneEntropy(report: ProbeReport, o: Observation): ProbeReport {
  return { ...report, observations: report.observations.map((x) => (x.class === 'clone-entropy' ? o : x)) };
}
