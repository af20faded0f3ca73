// One line of the effect ledger's wire protocol (NDJSON over TCP on 127.0.0.1): a request checked by hand, field by
// field, so nothing a client sends reaches the database unchecked; the reply is one line too.
import { DISCIPLINES, type Discipline } from './plan.js';
import type { EffectRequest } from './ledger-db.js';

/** Longest request line the ledger reads (a real request is about 250 bytes). */
export const MAX_REQUEST_BYTES = 4096;

/** The ledger's answer: acknowledged (committed, applied or deduplicated), or refused with why. */
export type LedgerReply = { ok: true; seq: number; applied: boolean } | { ok: false; error: string };

const ID = /^[A-Za-z0-9:_-]{1,128}$/;

/** The request in `line` and the token it carries, or what is wrong with it (one line). */
export function parseRequest(line: string): { token: string; req: EffectRequest } | { error: string } {
  let raw: unknown;
  try {
    raw = JSON.parse(line);
  } catch {
    return { error: 'not JSON' };
  }
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return { error: 'expected an object' };
  const r = raw as Record<string, unknown>;
  for (const f of ['token', 'session', 'incarnation', 'effect'] as const)
    if (typeof r[f] !== 'string' || !ID.test(r[f]))
      return { error: `${f}: expected an id of [A-Za-z0-9:_-], 1-128 long` };
  if (!DISCIPLINES.includes(r.discipline as Discipline))
    return { error: `discipline: expected one of ${DISCIPLINES.join(', ')}` };
  if (r.key !== null && (typeof r.key !== 'string' || !ID.test(r.key)))
    return { error: 'key: expected null or an id of [A-Za-z0-9:_-], 1-128 long' };
  if (typeof r.step !== 'number' || !Number.isSafeInteger(r.step) || r.step < 0)
    return { error: 'step: expected an integer >= 0' };
  return {
    token: r.token as string,
    req: {
      session: r.session as string,
      incarnation: r.incarnation as string,
      effect: r.effect as string,
      discipline: r.discipline as Discipline,
      key: r.key,
      step: r.step,
    },
  };
}
