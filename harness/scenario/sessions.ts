// Many sessions on one host (issue 36): the scenario field's bounds, what it may be combined with, and each session's
// seed (a pure function of the scenario's seed and the session index: session 0 keeps the seed, so its plan is today's).
import { createHash } from 'node:crypto';

/** The most sessions one runner starts at once. */
export const MAX_SESSIONS = 64;

/** Targets that run many sessions at once (the others are refused with sessions > 1). */
const MULTI_SESSION_TARGETS: readonly string[] = ['process', 'microvm'];

/** Faults that run with many sessions (the meeting ones take every session at once: nemesis/crash-barrier.ts). */
const MULTI_SESSION_FAULTS: readonly string[] = ['sigkill', 'host-crash', 'checkpoint-storm', 'memory-pressure'];

/** Faults that need several sessions (a checkpoint storm is every session checkpointing at once). */
const MANY_SESSION_FAULTS: readonly string[] = ['checkpoint-storm'];

/** The scenario fields (scenario.ts, which imports this file) that decide whether sessions can run at once. */
interface SessionsFields {
  sessions: number;
  target: string;
  faults: readonly { kind: string }[];
  standby: boolean | 'pool';
  untilDecided?: boolean | undefined;
  effects?: unknown;
  probe?: boolean | undefined;
  promises?: readonly unknown[] | undefined;
}

/** Why `s` cannot run its sessions at once (one line), or undefined when it can. */
export function sessionsIssue(s: SessionsFields): string | undefined {
  if (s.sessions === 1) {
    const lone = s.faults.find((f) => MANY_SESSION_FAULTS.includes(f.kind));
    return (
      lone && `faults: "${lone.kind}" needs several sessions (sessions: 1; use sessions: 2 or more, or --sessions N)`
    );
  }
  const n = `sessions: ${s.sessions}`;
  if (!MULTI_SESSION_TARGETS.includes(s.target))
    return `${n}: target "${s.target}" runs one session at a time (only ${MULTI_SESSION_TARGETS.join(' and ')} run many)`;
  const other = s.faults.find((f) => !MULTI_SESSION_FAULTS.includes(f.kind));
  if (other !== undefined)
    return `${n}: fault "${other.kind}" runs with one session only (${MULTI_SESSION_FAULTS.join(', ')} run with many)`;
  if (s.standby) return `${n}: standby runs with one session only`;
  if (s.untilDecided === true) return `${n}: untilDecided runs with one session only`;
  if (s.effects !== undefined) return `${n}: effects run with one session only`;
  if (s.probe === true || (s.promises !== undefined && s.promises.length > 0))
    return `${n}: probe/promises run with one session only`;
  return undefined;
}

/** Session `index`'s seed: the scenario's for session 0 (its kill plan unchanged), a hash of (seed, index) otherwise. */
export function sessionSeed(seed: number, index: number): number {
  if (index === 0) return seed;
  return createHash('sha256').update(`session#${seed}#${index}`).digest().readUInt32BE(0);
}

/** The scenario session `index` runs: the run's, with that session's seed. */
export function sessionScenario<S extends { seed: number }>(s: S, index: number): S {
  return index === 0 ? s : { ...s, seed: sessionSeed(s.seed, index) };
}
