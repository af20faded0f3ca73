// The guest's serial console wire: split output into lines, parse `HB` / `HBF` heartbeat lines, keep other lines for errors.
import type { Heartbeat } from '../../check/heartbeat.js';
import { EFFECT_LINE_PREFIX } from './effect-relay.js';

// Every number at most 15 digits (below 2^53): a garbled guest line never makes a count the journal cannot hold.
const N = String.raw`(\d{1,15})`;
const H64 = '([0-9a-f]{64})';
const LIGHT = new RegExp(`HB ${N} ([0-9a-f]{16})$`);
const FULL = new RegExp(
  `HBF ${N} ([0-9a-f]{16}) ${N} ${H64} ${N} ${H64} ${N} ${H64}(?: E ${N} ${N} ${N} ${N})?(?: W ${N} ${N} ${N} ([a-z-]{1,15}))?$`,
);

/** The byte the host writes to the console to ask the agent for a full heartbeat (it also ends a hold). */
export const FULL_HEARTBEAT_REQUEST = 'F';
/** Ask the agent to start no new step (acknowledged with `HOLD <step>`) until RELEASE, a full-heartbeat request or 1 s of guest time. */
export const HOLD_REQUEST = 'H';
export const RELEASE_REQUEST = 'R';

const HOLD = new RegExp(`HOLD ${N}$`);
/** A template-mode agent's pre-session line: booted, tool ready, waiting for its session identity (agent.c). */
const READY = /READY ([0-9a-f]{16})$/;

/** The line that gives a template-mode agent its session identity: new boot nonce and entropy (hex), newline-ended. */
export function identityLine(nonce: string, entropyHex: string): string {
  return `I ${nonce} ${entropyHex}\n`;
}
/** TEST-ONLY negative control: start the session but keep the template's identity (its nonce). */
export const KEEP_TEMPLATE_IDENTITY_LINE = 'I\n';

/**
 * Parse one console line; undefined when it is not a heartbeat (kernel noise, init messages). A full heartbeat of an
 * agent with effects ends in ` E <through> <step-key> <random-key> <no-key>`: its claim, whose incarnation (the guest
 * process) only the host knows, so it is left empty here (effect-relay.ts fills it in). One from a guest running the
 * coding workload ends in ` W <iteration> <failures> <served> <last failure>` (agent.c, vm-images/work/work.sh).
 */
export function parseHeartbeatLine(line: string): Heartbeat | undefined {
  const text = line.replace(/\r/g, '').trimEnd();
  const f = FULL.exec(text);
  if (f) {
    const [, step, nonce, fsStep, fsDigest, memStep, memDigest, toolStep, toolDigest] = f as unknown as string[];
    const [through, sk, rk, nk, iteration, failures, served, last] = f.slice(9, 17);
    return {
      step: Number(step),
      nonce: nonce!,
      full: true,
      fs: { step: Number(fsStep), digest: fsDigest! },
      mem: { step: Number(memStep), digest: memDigest! },
      tool: { step: Number(toolStep), digest: toolDigest! },
      ...(through !== undefined
        ? {
            effects: {
              through: Number(through),
              acked: { 'step-key': Number(sk), 'random-key': Number(rk), 'no-key': Number(nk) },
              incarnation: '',
            },
          }
        : {}),
      ...(iteration !== undefined
        ? { work: { iteration: Number(iteration), failures: Number(failures), served: Number(served), last: last! } }
        : {}),
    };
  }
  const l = LIGHT.exec(text);
  if (l) return { step: Number(l[1]), nonce: l[2]!, full: false };
  return undefined;
}

/** Accumulates chunks and emits complete lines; remembers the last few non-heartbeat lines for error messages. */
export class ConsoleReader {
  private partial = '';
  private readonly tail: string[] = [];

  constructor(
    private readonly onHeartbeat: (hb: Heartbeat) => void,
    private readonly keep = 20,
    private readonly onHold: (step: number) => void = () => {},
    private readonly onReady: (nonce: string) => void = () => {},
    /** An effect request line (effect-relay.ts); returns why it was dropped, if it was (kept for error messages). */
    private readonly onEffect?: (line: string) => string | undefined,
  ) {}

  push(chunk: string): void {
    this.partial += chunk;
    let nl: number;
    while ((nl = this.partial.indexOf('\n')) >= 0) {
      const line = this.partial.slice(0, nl);
      this.partial = this.partial.slice(nl + 1);
      if (this.onEffect !== undefined && line.startsWith(EFFECT_LINE_PREFIX)) {
        const dropped = this.onEffect(line);
        if (dropped !== undefined) this.remember(dropped);
        continue;
      }
      const hb = parseHeartbeatLine(line);
      const hold = hb ? null : HOLD.exec(line.trimEnd());
      const ready = hb || hold ? null : READY.exec(line.trimEnd());
      if (hb) this.onHeartbeat(hb);
      else if (hold) this.onHold(Number(hold[1]));
      else if (ready) this.onReady(ready[1]!);
      else if (line.trim() !== '') this.remember(line.trim());
    }
    if (this.partial.length > 64 * 1024) this.partial = this.partial.slice(-4096); // no newline in a flood of noise
  }

  /** The last non-heartbeat console lines (kernel panic, INIT-ERROR, AGENT-ERROR). */
  recentNoise(): string[] {
    return [...this.tail];
  }

  private remember(line: string): void {
    this.tail.push(line.slice(0, 300));
    if (this.tail.length > this.keep) this.tail.shift();
  }
}
