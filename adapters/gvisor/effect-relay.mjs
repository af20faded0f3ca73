// The gVisor adapter's relay of its sandbox's external effects (docs/effects.md): the sandbox has no network
// (--network=none), so the static C agent writes each effect request as one `EFX` line on its stdio
// (vm-images/agent/effects.c); the relay checks it field by field and bounded in length, adds the run's token (from
// this adapter's environment: it never enters the sandbox) and the incarnation, calls the run's effect ledger on the
// host's 127.0.0.1 and writes the reply back on the agent's stdin. Written against the protocol only: no harness
// imports (the harness's own relay is harness/targets/guest/effect-relay.ts).
import { randomBytes } from 'node:crypto';
import { connect } from 'node:net';
import { createInterface } from 'node:readline';

/** Longest request line read (a real one is about 100 bytes); longer ones are dropped unread. */
export const MAX_EFFECT_LINE = 256;
const DISCIPLINES = ['step-key', 'random-key', 'no-key'];
const LINE = /^EFX ([0-9a-f]{16}) ([a-z-]{1,16}):(\d{1,15}) ([a-z-]{1,16}) ([0-9a-f]{32}|-) (\d{1,15})$/;

/** The request in a sandbox's line, or { error } (one line). */
export function parseEffectLine(line) {
  if (line.length > MAX_EFFECT_LINE) return { error: `longer than ${MAX_EFFECT_LINE} bytes` };
  const m = LINE.exec(line);
  if (m === null) return { error: 'not EFX <session> <discipline>:<step> <discipline> <key|-> <step>' };
  const [, session, effDiscipline, effStep, discipline, key, step] = m;
  if (!DISCIPLINES.includes(discipline)) return { error: 'unknown discipline' };
  if (effDiscipline !== discipline || effStep !== step || String(Number(step)) !== step)
    return { error: 'effect id does not name its own discipline and step' };
  if ((discipline === 'no-key') !== (key === '-')) return { error: 'a key for no-key, or none for a keyed discipline' };
  return { session, effect: `${discipline}:${step}`, discipline, key: key === '-' ? null : key, step: Number(step) };
}

/**
 * One sandbox's relay (a new incarnation at every boot and restore: the restored agent's memory is the checkpoint's).
 * One request at a time (a repeat meanwhile is dropped); a repeat of the request last acknowledged gets the same reply
 * again without reaching the world (within one incarnation a repeat is the agent's doubt, not a re-emission).
 */
export class EffectRelay {
  constructor(ledger, write) {
    this.ledger = ledger; // host:port
    this.write = write;
    this.incarnation = randomBytes(8).toString('hex');
    this.socket = null;
    this.waiting = null;
    this.busy = false;
    this.closed = false;
    this.last = null;
  }

  /** One `EFX` line; returns why it was dropped, if it was. */
  handle(line) {
    const req = parseEffectLine(line.trimEnd());
    if (req.error !== undefined) return `effect request dropped: ${req.error}`;
    if (this.busy || this.closed) return undefined;
    const id = `${req.session} ${req.effect}`;
    if (this.last?.id === id) {
      this.write(this.last.reply);
      return undefined;
    }
    this.busy = true;
    this.emit({ ...req, incarnation: this.incarnation })
      .then(
        (r) => `efa ${req.effect} ${r.seq} ${r.applied ? 1 : 0}\n`,
        () => `efr ${req.effect}\n`, // refused (a bug) or closed: the agent stops with AGENT-ERROR
      )
      .then((reply) => {
        this.busy = false;
        this.last = { id, reply };
        if (!this.closed) this.write(reply);
      });
    return undefined;
  }

  close() {
    this.closed = true;
    this.socket?.destroy();
    this.waiting?.(null);
  }

  connectLedger() {
    const [host, port] = this.ledger.split(':');
    return new Promise((resolve, reject) => {
      const s = connect(Number(port), host);
      s.once('error', reject);
      s.once('connect', () => {
        s.off('error', reject);
        s.on('error', () => s.destroy());
        s.on('close', () => {
          if (this.socket === s) this.socket = null;
          this.waiting?.(null);
        });
        createInterface({ input: s }).on('line', (l) => this.waiting?.(JSON.parse(l)));
        resolve(s);
      });
    });
  }

  /** Send until acknowledged (a cut or refused connection: again); a refusal by the ledger is thrown. */
  async emit(req) {
    for (;;) {
      if (this.closed) throw new Error('relay closed');
      try {
        this.socket ??= await this.connectLedger();
        const token = process.env.SOAK_EFFECT_LEDGER_TOKEN ?? '';
        const reply = await new Promise((resolve) => {
          this.waiting = resolve;
          this.socket.write(`${JSON.stringify({ token, ...req })}\n`);
        });
        this.waiting = null;
        if (reply?.ok === true) return reply;
        if (reply?.ok === false) throw new Error(`effect ledger refused ${req.effect}: ${reply.error}`);
      } catch (err) {
        if (err.message.startsWith('effect ledger refused')) throw err;
        this.socket?.destroy();
        this.socket = null;
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

/** Split a stream into lines of at most `max` bytes: a longer line is cut off there and the rest dropped to its end. */
export function boundedLines(stream, max, onLine) {
  let buf = '';
  let skipping = false;
  stream.setEncoding('utf8');
  stream.on('data', (chunk) => {
    buf += chunk;
    let nl;
    while ((nl = buf.indexOf('\n')) >= 0) {
      if (!skipping) onLine(buf.slice(0, nl));
      skipping = false;
      buf = buf.slice(nl + 1);
    }
    if (buf.length > max) {
      if (!skipping) onLine(buf.slice(0, max)); // too long: seen as what it is (a relay drops an overlong request)
      skipping = true;
      buf = '';
    }
  });
}
