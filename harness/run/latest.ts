// The runner's reading of the store's newest complete checkpoint (the reference a resume is checked against), kept
// between reads so each one resolves only the manifests committed since the last (Store.newest(since)), with the same
// answer as a full read; and keeping it current as the session commits, away from a planned kill.
import { nowMs, sleep } from '../core/clock.js';
import type { HostHandle } from '../session/host-handle.js';
import type { HostMessage } from '../session/protocol.js';
import type { Newest } from '../store/repository.js';
import type { Store } from '../store/store.js';

/** Each store's last newest() result (a store reopened after a power loss is a new key: it is read in full). */
const last = new WeakMap<Store, Newest>();
/** How long the last read took (ms): a read on a commit starts only if two of these fit before the kill. */
let lastReadMs = 50;

/** The store's newest complete checkpoint now: new packs picked up, then only manifests newer than the last read. */
export function readLatest(store: Store): { seq: number; step: number } | null {
  const started = nowMs();
  store.refresh();
  const n = store.newest(last.get(store));
  last.set(store, n);
  lastReadMs = nowMs() - started;
  return n.manifest;
}

/**
 * Until the returned stop function is called: read the store's newest after each checkpoint `host` commits, so the
 * read after a kill has little left to resolve. Skipped when the kill (planned at `killAt()`, monotonic ms) is nearer
 * than two reads, so a read does not hold back the kill the runner's event loop is about to send.
 */
export function followCommits(host: HostHandle, store: () => Store, killAt: () => number): () => void {
  const onMsg = (msg: HostMessage): void => {
    if (msg.ev === 'ckpt-commit' && killAt() - nowMs() > 2 * Math.max(lastReadMs, 25)) readLatest(store());
  };
  host.on('msg', onMsg);
  return () => void host.off('msg', onMsg);
}

/**
 * Wait out the work delay before a kill and, when a standby is starting, until it is ready (a kill waits for it),
 * reading the store's newest on each commit of `host` while the kill is not near (until the standby is ready, it is not).
 */
export async function workDelay(
  host: HostHandle,
  store: () => Store,
  delayMs: number,
  standbyReady?: Promise<void>,
): Promise<void> {
  const workEnd = nowMs() + delayMs;
  let ready = standbyReady === undefined;
  const unfollow = followCommits(host, store, () => (ready ? workEnd : Infinity));
  try {
    await Promise.all([sleep(delayMs), standbyReady?.then(() => void (ready = true))]);
  } finally {
    unfollow();
  }
}
