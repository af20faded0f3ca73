// The journal codec: each event's one field order. Re-encoding every line of the checked-in journals gives the same
// bytes, and the writer puts an event's fields in codec order whatever order its producer listed them in.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { AnalysisLineReader } from '../../harness/analysis/fastpath/line-reader.js';
import { RunAccumulator } from '../../harness/analysis/accumulator.js';
import { encodeEvent, FIELD_ORDER } from '../../harness/journal/codec.js';
import type { EventInput, JournalEvent } from '../../harness/journal/events.js';
import { JournalWriter } from '../../harness/journal/writer.js';
import { fixtureNames, fixtureText } from '../helpers/journals.js';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'soak-codec-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** The keys of a journal line, in the order they are written. */
const keysOf = (line: string): string[] => Object.keys(JSON.parse(line) as object);

/** Write `events` through a JournalWriter; the lines it wrote. */
function written(name: string, events: EventInput[]): string[] {
  const file = path.join(tmp, `${name}.ndjson`);
  const w = new JournalWriter(file, () => 1.5);
  for (const e of events) w.append(e);
  w.close();
  return readFileSync(file, 'utf8').trimEnd().split('\n');
}

/** A kill event whose producer lists its fields backwards. */
const backwardsKill = (): EventInput =>
  Object.fromEntries(
    Object.entries({
      type: 'kill',
      cycle: 3,
      phase: 'work',
      observedPhase: 'checkpoint',
      atStep: 41,
      nonce: 'abc',
      lastCommittedSeq: 4,
      lastCommittedStep: 40,
      inFlightSeq: 5,
    }).reverse(),
  ) as unknown as EventInput;

describe('encodeEvent', () => {
  it.each(fixtureNames)('%s: every line re-encodes to the same bytes (fixture journals stay valid)', (name) => {
    const lines = fixtureText(name).trimEnd().split('\n');
    const complete = lines.filter((l) => {
      try {
        JSON.parse(l);
        return true;
      } catch {
        return false; // a torn last line
      }
    });
    expect(complete.length).toBeGreaterThan(10);
    for (const l of complete) expect(encodeEvent(JSON.parse(l) as JournalEvent)).toBe(l);
  });

  it('writes schemaVersion, t, type, then the fields in FIELD_ORDER, leaving undefined ones out', () => {
    const ev = { t: 2, type: 'run-end', cycles: 4, schemaVersion: 1, status: 'complete' } as unknown as JournalEvent;
    expect(encodeEvent(ev)).toBe('{"schemaVersion":1,"t":2,"type":"run-end","status":"complete","cycles":4}');
    const start = {
      schemaVersion: 1,
      t: 0,
      type: 'run-start',
      runId: 'r',
      shard: undefined,
    } as unknown as JournalEvent;
    expect(encodeEvent(start)).toBe('{"schemaVersion":1,"t":0,"type":"run-start","runId":"r"}');
  });

  it('keeps a field it does not know, after the known ones', () => {
    const ev = { schemaVersion: 1, t: 0, extra: [1], type: 'run-end', status: 'complete', cycles: 1 };
    expect(keysOf(encodeEvent(ev as unknown as JournalEvent))).toEqual([
      'schemaVersion',
      't',
      'type',
      'status',
      'cycles',
      'extra',
    ]);
  });
});

describe('JournalWriter encodes with the codec (negative control: fails if it bypasses it)', () => {
  it('an event listed in another order by its producer is written in codec order', () => {
    const event = backwardsKill();
    expect(Object.keys(event)[0]).toBe('inFlightSeq'); // the producer's order really differs
    expect(JSON.stringify(event)).not.toContain('"type":"kill","cycle"');
    const [line] = written('backwards', [event]);
    const listed = FIELD_ORDER.kill.filter((k) => k !== 'session'); // session 0 (a one-session run) writes none
    expect(keysOf(line!)).toEqual(['schemaVersion', 't', 'type', ...listed]);
    const [ofSession] = written('of-session', [{ ...event, session: 2 }]);
    expect(keysOf(ofSession!)).toEqual(['schemaVersion', 't', 'type', ...FIELD_ORDER.kill]); // right after type
  });

  it('so the fast path takes the line', () => {
    const [line] = written('backwards-fast', [backwardsKill()]);
    const bytes = Buffer.from(line!);
    expect(new AnalysisLineReader(new RunAccumulator()).read(bytes, 0, bytes.length)).toBe(true);
    const reordered = Buffer.from(`${JSON.stringify(JSON.parse(line!) as object).slice(0, -1)},"x":1}`);
    expect(new AnalysisLineReader(new RunAccumulator()).read(reordered, 0, reordered.length)).toBe(false);
  });
});
