// Promises (issue 33): the classes of guest state a runtime documents as kept across a resume, listed by a scenario
// (field `promises`) or an adapter's describe answer; checked here against the vocabulary of check/survival.ts.
import { LATER_CLOCKS, MATRIX_ONLY, STATE_CLASS_IDS, type StateClass } from './survival.js';

/** The classes a promise list names (duplicates dropped), or what is wrong with it (one line, naming the element). */
export function parsePromises(raw: unknown, field = 'promises'): StateClass[] | string {
  if (!Array.isArray(raw)) return `${field}: expected a list of classes of guest state, got ${typeof raw}`;
  const out: StateClass[] = [];
  for (const [i, c] of raw.entries()) {
    if (typeof c !== 'string' || !STATE_CLASS_IDS.includes(c as StateClass))
      return `${field}[${i}]: ${JSON.stringify(c)} is not a class of guest state (one of: ${STATE_CLASS_IDS.join(', ')}; docs/what-survives.md)`;
    if (LATER_CLOCKS.includes(c as StateClass))
      return `${field}[${i}]: ${JSON.stringify(c)} is read only by \`soak target check --matrix --clock-after\`; a soak reads the wall clock once, at the examination (promise clock-wall; docs/what-survives.md)`;
    if (MATRIX_ONLY.includes(c as StateClass))
      return `${field}[${i}]: ${JSON.stringify(c)} is measured only by \`soak target check --matrix\` (a clone or an echo outside the sandbox beside each trial); a soak cannot judge it (docs/what-survives.md)`;
    if (!out.includes(c as StateClass)) out.push(c as StateClass);
  }
  return out;
}

/** The promised classes of a run: its scenario's and its adapter's (target fact `promises`, comma-separated), merged. */
export function promisedClasses(scenario: readonly string[] | undefined, adapter: unknown): StateClass[] {
  const fromAdapter = typeof adapter === 'string' && adapter !== '' ? adapter.split(',') : [];
  const all = parsePromises([...(scenario ?? []), ...fromAdapter]);
  return typeof all === 'string' ? [] : all;
}
