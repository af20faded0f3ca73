// The journal's one home for each event's field order, and the encoder that writes an event's line in it. The writer,
// the analysis fast path (which matches these keys byte for byte) and the synthetic benchmark journal all use it, so a
// producer listing its fields in another order cannot push lines off the fast path.
import type { JournalEvent } from './events.js';

/** An event type name. */
export type EventType = JournalEvent['type'];

/** The event variant of type `T`. */
export type EventOf<T extends EventType> = Extract<JournalEvent, { type: T }>;

/** The fields of event type `T` that follow the fixed head (schemaVersion, t, type). */
export type FieldOf<T extends EventType> = Exclude<keyof EventOf<T>, 'schemaVersion' | 't' | 'type'> & string;

/** Each event type's fields, in the order they are written after `{"schemaVersion":..,"t":..,"type":..`. */
export const FIELD_ORDER = {
  'run-start': [
    'session',
    'runId',
    'startedAt',
    'scenario',
    'environment',
    'shard',
    'mergedFrom',
    'sources',
    'seedKey',
    'manualKills',
    'forcedOverlap',
  ],
  'run-resume': ['session', 'killedGroups', 'remaining', 'killedDeclared'],
  'target-info': ['session', 'cycle', 'info'],
  'host-start': ['session', 'cycle', 'pid', 'mode'],
  'kill-list': ['session', 'cycle', 'host', 'hostStartTime', 'procs'],
  boot: ['session', 'cycle', 'bootMs', 'nonce', 'sample'],
  checkpoint: [
    'session',
    'cycle',
    'seq',
    'step',
    'pauseMs',
    'writeMs',
    'logicalBytes',
    'storedBytes',
    'chunks',
    'newChunks',
    'meta',
  ],
  'cycle-start': ['session', 'cycle', 'phase'],
  kill: [
    'session',
    'cycle',
    'phase',
    'observedPhase',
    'atStep',
    'nonce',
    'lastCommittedSeq',
    'lastCommittedStep',
    'inFlightSeq',
  ],
  fault: ['session', 'cycle', 'kind', 'acknowledgedSeq', 'acknowledgedStep', 'durationMs'],
  'host-crash': ['session', 'cycle', 'sessions', 'killed', 'spreadMs', 'back', 'lastBackMs'],
  'checkpoint-storm': [
    'session',
    'cycle',
    'sessions',
    'begun',
    'queued',
    'spreadMs',
    'durationMs',
    'committed',
    'torn',
    'failed',
    'pauseMs',
    'writeMs',
  ],
  'memory-pressure': ['session', 'cycle', 'sessions', 'usageBytes', 'limitBytes', 'oomKills', 'victims', 'killMs'],
  restore: ['session', 'cycle', 'seq', 'step', 'restoreMs', 'source'],
  observation: [
    'session',
    'cycle',
    'restoredSeq',
    'restoredStep',
    'killStep',
    'nonce',
    'latestCompleteSeq',
    'step',
    'heartbeatNonce',
    'full',
    'fs',
    'mem',
    'tool',
    'acknowledgedSeq',
    'ran',
    'work',
    'workBefore',
  ],
  cycle: [
    'session',
    'cycle',
    'phase',
    'observedPhase',
    'outcome',
    'downtimeMs',
    'killStep',
    'restoredSeq',
    'restoredStep',
    'lostSteps',
    'restoreKills',
    'violations',
    'cause',
  ],
  'run-end': ['session', 'status', 'cycles', 'reason', 'store', 'decided'],
  'machine-load': ['session', 'cycle', 'windowMs', 'load1', 'stealPct', 'busyPct', 'harnessPct', 'otherCpuPct'],
  effects: ['session', 'cycle', 'restoredThrough', 'incarnations', 'disciplines', 'clone'],
  'guest-state': ['session', 'cycle', 'mode', 'observations', 'problem'],
} as const satisfies { [T in EventType]: readonly FieldOf<T>[] };

/** The fields an event type declares but FIELD_ORDER leaves out (never, or this file does not compile). */
type Unlisted = { [T in EventType]: Exclude<FieldOf<T>, (typeof FIELD_ORDER)[T][number]> }[EventType];
/** Compile-time proof that FIELD_ORDER lists every field of every event type. */
export const FIELD_ORDER_COMPLETE: [Unlisted] extends [never] ? true : Unlisted = true;

const ORDER: { [T in EventType]: readonly FieldOf<T>[] } = FIELD_ORDER;
/** The field order of event type `type` (FIELD_ORDER, typed by its event). */
export function fieldOrder<T extends EventType>(type: T): readonly FieldOf<T>[] {
  return ORDER[type];
}

const HEAD = new Set(['schemaVersion', 't', 'type']);
const LISTED = new Map<string, ReadonlySet<string>>(
  Object.entries(FIELD_ORDER).map(([type, fields]) => [type, new Set<string>(fields)]),
);

/** `,"name":value` as JSON.stringify writes an object member; empty for a value it leaves out (undefined). */
function member(name: string, value: unknown): string {
  const json = JSON.stringify(value) as string | undefined;
  return json === undefined ? '' : `,${JSON.stringify(name)}:${json}`;
}

/**
 * One journal line (no newline) for `ev`: schemaVersion, t and type first, then its fields in FIELD_ORDER, whatever
 * order the object lists them in. The bytes are JSON.stringify's for an object built in that order; a field the codec
 * does not know (an event read from a newer journal) is kept, after the known ones.
 */
export function encodeEvent(ev: JournalEvent): string {
  const rec = ev as unknown as Record<string, unknown>;
  const order: readonly string[] = (FIELD_ORDER as Record<string, readonly string[] | undefined>)[ev.type] ?? [];
  const listed = LISTED.get(ev.type);
  let line = `{"schemaVersion":${JSON.stringify(ev.schemaVersion)},"t":${JSON.stringify(ev.t)}${member('type', ev.type)}`;
  for (const name of order) line += member(name, rec[name]);
  for (const name of Object.keys(rec)) {
    if (!HEAD.has(name) && !listed?.has(name)) line += member(name, rec[name]);
  }
  return `${line}}`;
}
