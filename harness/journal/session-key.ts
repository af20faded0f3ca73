// A cycle's key across a run's sessions (scenario sessions, issue 36): cycle ids repeat in every session, so whatever
// counts a cycle once (the journal protocol, analysis) keys it by session and cycle; session 0's key is its cycle id.

/** Cycle ids stay below this (number-rules.ts CYCLE_ID), so the key of (session, cycle) is exact and unique. */
const STRIDE = 2 ** 32;

/** The key of `cycle` of `session` (absent: session 0, whose key is the cycle id itself). */
export function sessionCycleKey(session: number | undefined, cycle: number): number {
  return (session ?? 0) * STRIDE + cycle;
}

/** The session and cycle id of a key. */
export function fromSessionCycleKey(key: number): { session: number; cycle: number } {
  return { session: Math.floor(key / STRIDE), cycle: key % STRIDE };
}

/** How a message names a keyed cycle: "cycle 3", or "session 2 cycle 3". */
export function sessionCycleName(key: number): string {
  const { session, cycle } = fromSessionCycleKey(key);
  return session === 0 ? `cycle ${cycle}` : `session ${session} cycle ${cycle}`;
}
