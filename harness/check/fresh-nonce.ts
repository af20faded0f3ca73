// The fresh-session nonce rule: a newly started session (cold boot or template restore) has a boot nonce no earlier
// session of the run had. A template clone that kept the template's identity, or read its nonce from a cloned CRNG,
// repeats one; the resume check alone cannot see that (each resume keeps its own session's nonce). Pure.
import type { Violation } from './heartbeat.js';

/** The violation of a fresh session whose nonce an earlier session of the run already had; empty when it is new. */
export function checkFreshNonce(nonce: string, earlier: ReadonlySet<string>): Violation[] {
  if (!earlier.has(nonce)) return [];
  return [
    {
      code: 'nonce-reused',
      message: `fresh session reused boot nonce ${nonce} of an earlier session (a template clone not re-identified?)`,
    },
  ];
}
