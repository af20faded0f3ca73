// What the kernel says about a server under test (Linux /proc): its resident memory, and how many connections it holds.
import { readFileSync } from 'node:fs';

/** Resident set size of process `pid`, bytes (VmRSS). */
export function rssBytes(pid: number): number {
  const kb = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  if (kb === undefined) throw new Error(`no VmRSS in /proc/${pid}/status`);
  return Number(kb) * 1024;
}

/**
 * Established TCP connections whose local port is `port` (the server's side of each: accepted or waiting in the
 * listen backlog), from /proc/net/tcp and tcp6.
 */
export function establishedOn(port: number): number {
  const hex = port.toString(16).toUpperCase().padStart(4, '0');
  let n = 0;
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text: string;
    try {
      text = readFileSync(table, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const [, local, , state] = line.trim().split(/\s+/);
      if (local?.endsWith(`:${hex}`) && state === '01') n++;
    }
  }
  return n;
}

/** Resolves once `cond()` holds, checking every `everyMs`; rejects after `guardMs` (a guard, not a timed assertion). */
export async function until(cond: () => boolean, what: string, everyMs = 50, guardMs = 60_000): Promise<void> {
  const start = Date.now();
  while (!cond()) {
    if (Date.now() - start > guardMs) throw new Error(`still waiting after ${guardMs} ms for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
