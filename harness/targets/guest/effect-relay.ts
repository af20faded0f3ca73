// The host's side of a guest's external effects (issue 34): a guest has no network, so the static C agent writes each
// effect request as one `EFX` line on its console (vm-images/agent/effects.c); the relay checks the line field by field
// and bounded in length, adds the run's token and this guest process's incarnation (neither ever enters the guest),
// sends it to the effect ledger and writes the acknowledgement back on the console.
import { randomBytes } from 'node:crypto';
import { LedgerClient } from '../../effects/client.js';
import type { EffectRequest } from '../../effects/ledger-db.js';
import type { Heartbeat } from '../../check/heartbeat.js';
import { DISCIPLINES, LEDGER_TOKEN_ENV, type Discipline, type EffectsConfig } from '../../effects/plan.js';

/** How a request line starts (heartbeats start with `HB`, holds with `HOLD`). */
export const EFFECT_LINE_PREFIX = 'EFX ';
/** Longest request line the relay reads (a real one is about 100 bytes); longer ones are dropped unread. */
export const MAX_EFFECT_LINE = 256;

const LINE = /^EFX ([0-9a-f]{16}) ([a-z-]{1,16}):(\d{1,15}) ([a-z-]{1,16}) ([0-9a-f]{32}|-) (\d{1,15})$/;

/** The request in a guest's line (session, effect, discipline, key, step), or what is wrong with it (one line). */
export function parseEffectLine(line: string): Omit<EffectRequest, 'incarnation'> | { error: string } {
  if (line.length > MAX_EFFECT_LINE) return { error: `longer than ${MAX_EFFECT_LINE} bytes` };
  const m = LINE.exec(line);
  if (m === null) return { error: 'not EFX <session> <discipline>:<step> <discipline> <key|-> <step>' };
  const [, session, effDiscipline, effStep, discipline, key, step] = m as unknown as string[];
  if (!DISCIPLINES.includes(discipline as Discipline)) return { error: `unknown discipline` };
  if (effDiscipline !== discipline || effStep !== step || String(Number(step)) !== step)
    return { error: 'effect id does not name its own discipline and step' };
  if ((discipline === 'no-key') !== (key === '-')) return { error: 'a key for no-key, or none for a keyed discipline' };
  return {
    session: session!,
    effect: `${discipline}:${step}`,
    discipline: discipline as Discipline,
    key: key === '-' ? null : key!,
    step: Number(step),
  };
}

/**
 * One guest process's relay: one request at a time (the agent waits for each; a repeat meanwhile is dropped), and a
 * repeat of the request it last acknowledged gets the same reply again without reaching the world: within one guest
 * process a repeat is the agent's doubt (a full-heartbeat request read mid-wait), not a re-emission. A restored guest
 * has a new relay, so its repeats reach the world: what the accounting counts.
 */
export class EffectRelay {
  /** This guest process: a restored guest is a new incarnation, although its memory is the checkpoint's. */
  readonly incarnation = randomBytes(8).toString('hex');
  private readonly client: LedgerClient;
  private busy = false;
  private closed = false;
  private last: { id: string; reply: string } | undefined;

  constructor(
    cfg: EffectsConfig,
    private readonly write: (text: string) => void,
    token = process.env[LEDGER_TOKEN_ENV] ?? '',
  ) {
    this.client = new LedgerClient(cfg.ledger, token);
  }

  /** Handle one console line that starts with EFFECT_LINE_PREFIX; returns what was wrong with it, if it was dropped. */
  handle(line: string): string | undefined {
    const req = parseEffectLine(line.replace(/\r/g, '').trimEnd());
    if ('error' in req) return `effect request dropped: ${req.error}`;
    if (this.busy || this.closed) return undefined; // the agent sends the same request again if it gets no reply
    const id = `${req.session} ${req.effect}`;
    if (this.last?.id === id) {
      this.write(this.last.reply);
      return undefined;
    }
    this.busy = true;
    void this.client
      .emit({ ...req, incarnation: this.incarnation })
      .then(
        (r) => `efa ${req.effect} ${r.seq} ${r.applied ? 1 : 0}\n`,
        () => `efr ${req.effect}\n`, // refused by the ledger (a bug): the agent stops with AGENT-ERROR
      )
      .then((reply) => {
        this.busy = false;
        this.last = { id, reply };
        if (!this.closed) this.write(reply);
      });
    return undefined;
  }

  /** The guest is gone: no more replies (a request under way is left to the ledger). */
  close(): void {
    this.closed = true;
    this.client.close();
  }
}

/** A full heartbeat's effects claim is made by this guest process (the relay's incarnation); without a relay, none. */
export function withIncarnation(hb: Heartbeat, relay: EffectRelay | undefined): Heartbeat {
  if (hb.effects === undefined) return hb;
  const { effects, ...rest } = hb;
  return relay === undefined ? rest : { ...rest, effects: { ...effects, incarnation: relay.incarnation } };
}
