// The session host: its own process, owning one session. Boots or restores the target, checkpoints it into the store
// at the cadence, and relays heartbeats and checkpoint events to the runner as NDJSON on stdout.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { monotonicMs, sleep, stopwatch } from '../core/clock.js';
import { ConfigError, diskErrno, SoakError } from '../core/errors.js';
import { writeBlocking } from '../core/blocking-write.js';
import { roundMs } from '../core/round.js';
import { parseHostConfig, type HostConfig, type HostMessage } from './protocol.js';
import type { Manifest } from '../store/manifest.js';
import type { Newest } from '../store/repository.js';
import { Store } from '../store/store.js';
import { NewestPreRead, standbyWarms } from './standby-newest.js';
import { warmReadPath } from './read-warm-up.js';
import { WARM_SOURCE, WarmChunks } from '../store/read/warm-chunks.js';
import { createTarget } from '../targets/registry.js';
import type { Target } from '../targets/target.js';
import { diskFull } from './disk-full.js';
import { awaitHandOff, type HandOff, standbySkipsRestore, standbyStaleNewest } from './standby.js';
import { PhaseRecorder, RUNS_FROM } from '../targets/phase-marks.js';
import { CHECKPOINT_NOW_SIGNAL, HOST_ALIVE_MS, RESTORE_TIMELINE, STORM_TORN, TIME_ORIGIN } from './protocol.js';

/** When this host's start-up and restore steps ended (performance.now(): ms since the process started). */
const timeline = new PhaseRecorder();
/** This host's config, once validated. */
let config: HostConfig | undefined;

/**
 * One line in the host log: the restore's timeline, the target's phases inside it, and this process's time origin
 * (epoch ms: the bench compares the hand-off with the runner's kill; bench/resume-floor reads it).
 */
function logRestoreTimeline(target: Target): void {
  const marks = { ...timeline.marks, ...target.restoreMarks?.() };
  const ordered = Object.entries(marks).sort(([, a], [, b]) => a - b);
  const line = { ...Object.fromEntries(ordered), [TIME_ORIGIN]: performance.timeOrigin };
  process.stderr.write(`host: ${RESTORE_TIMELINE} ${JSON.stringify(line)}\n`);
}

/** One message to the runner, in the kernel's buffer when this returns (a SIGKILL loses none: blocking-write.ts). */
function send(msg: HostMessage): void {
  writeBlocking(1, `${JSON.stringify(msg)}\n`);
}

/**
 * The host's own sign of life (`alive`), from its own timer whatever the target does, so the runner can tell a stuck
 * session from a stuck host. One short line per tick; unref'd: an empty event loop still means the target died.
 */
function sendAliveTicks(): void {
  let last = monotonicMs();
  setInterval(() => {
    const at = monotonicMs();
    send({ ev: 'alive', at: Math.round(at), gapMs: Math.round(at - last) });
    last = at;
  }, HOST_ALIVE_MS).unref();
}

/** The runner's "checkpoint now" (CHECKPOINT_NOW_SIGNAL): set until the next checkpoint begins; wakes the wait. */
const askedNow = { pending: false, wake: (): void => {} };

/** The wait between checkpoints: the cadence's rest, cut short by an asked checkpoint. */
function untilNextCheckpoint(ms: number): Promise<void> {
  if (askedNow.pending) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, Math.max(0, ms));
    askedNow.wake = () => {
      clearTimeout(timer);
      resolve();
    };
  });
}

async function checkpointLoop(cfg: HostConfig, store: Store, target: Target): Promise<never> {
  for (;;) {
    const started = stopwatch();
    const writer = store.begin(0);
    const asked = askedNow.pending;
    askedNow.pending = false;
    send({ ev: 'ckpt-begin', seq: writer.seq, ...(asked ? { asked } : {}) });
    const torn = asked && process.env[STORM_TORN] === '1'; // TEST-ONLY (protocol.ts STORM_TORN)
    const result = await target.checkpoint(writer, { skewMs: torn ? 200 : cfg.skewMs });
    writer.step = result.step;
    const manifest = writer.commit({ ...result.meta, pauseMs: roundMs(result.pauseMs) });
    await target.committed?.(manifest.seq);
    send({
      ev: 'ckpt-commit',
      seq: manifest.seq,
      step: manifest.step,
      pauseMs: result.pauseMs,
      writeMs: started() - result.pauseMs,
      logicalBytes: manifest.logicalBytes,
      storedBytes: manifest.storedBytes,
      chunks: manifest.chunks,
      newChunks: manifest.newChunks,
      meta: result.meta,
    });
    // TEST-ONLY: the torn checkpoint stays the newest until the storm's kill (due at its commit) lands: a loaded runner
    // read the commit late once, and the next checkpoint had committed first and was restored (CI: the control missed)
    if (torn) await new Promise<never>(() => {});
    await untilNextCheckpoint(cfg.checkpointEveryMs - started());
  }
}

/** 'describe' mode: build the target (no boot), report what it is, destroy it; touches neither store nor session. */
async function describeOnly(cfg: HostConfig, workDir: string): Promise<void> {
  const target = await createTarget(cfg.target, {
    workDir,
    sessionDir: workDir,
    stepMs: cfg.stepMs,
    options: cfg.targetOptions,
  });
  send({ ev: 'target', info: target.describe(), live: false });
  await target.destroy();
  rmSync(workDir, { recursive: true, force: true });
}

async function main(): Promise<void> {
  timeline.mark('main');
  const cfg = (config = parseHostConfig(process.argv[2])); // ConfigError (exit 3) naming the field
  mkdirSync(cfg.scratchDir, { recursive: true, mode: 0o700 });
  const workDir = mkdtempSync(path.join(cfg.scratchDir, `host-${process.pid}-`));
  if (cfg.mode === 'describe') {
    await describeOnly(cfg, workDir);
    process.exit(0);
  }
  sendAliveTicks();
  mkdirSync(cfg.sessionDir, { recursive: true });
  // A shared lock from before anything is read to this process's end (a SIGKILL leaves it stale): gc cannot run
  // while this host opens, restores or checkpoints.
  const store = Store.open(cfg.storeDir, { purpose: `session host (${cfg.mode})` });
  timeline.mark('storeOpen');
  const target = await createTarget(cfg.target, {
    workDir,
    sessionDir: cfg.sessionDir,
    stepMs: cfg.stepMs,
    options: cfg.targetOptions,
  });
  timeline.mark('targetCreated');
  send({ ev: 'target', info: target.describe(), live: false });
  target.onKillList?.((procs) => send({ ev: 'kill-list', procs }));
  target.onProbe?.((line) => send({ ev: 'probe', line }));
  target.onFault?.(fail); // an adapter's protocol fault between calls: this host dies of it (exit 5)
  let firstFull: () => void = () => {};
  const alive = new Promise<void>((resolve) => (firstFull = resolve));
  let judged = false; // the first full heartbeat (after a restore: the one the checker judges) was sent
  target.onHeartbeat((hb) => {
    const from = hb.full && !judged ? target.restoreMarks?.()[RUNS_FROM] : undefined;
    // how long the restored state could have run before this heartbeat (the checker allows the steps it could take)
    const ran = from === undefined ? {} : { ran: { ms: roundMs(performance.now() - from), stepMs: cfg.stepMs } };
    send({ ev: 'hb', ...hb, ...ran });
    if (hb.full) {
      judged = true;
      timeline.mark('firstFullHb');
      firstFull();
    }
  });
  const cleanup = async (): Promise<void> => {
    await target.destroy();
    store.close();
    rmSync(workDir, { recursive: true, force: true });
    process.exit(0);
  };
  process.on('SIGTERM', () => void cleanup());
  process.on('SIGINT', () => void cleanup());
  // After a freeze (SIGSTOP ... SIGCONT of the group) the runner checks the session on its next full heartbeat.
  process.on('SIGCONT', () => target.requestFullHeartbeat());
  // A checkpoint storm: checkpoint now (one in flight finishes first; protocol.ts CHECKPOINT_NOW_SIGNAL).
  process.on(CHECKPOINT_NOW_SIGNAL, () => {
    askedNow.pending = true;
    askedNow.wake();
  });

  let restored: Manifest | undefined;
  let order: HandOff = cfg.mode === 'boot' ? 'boot' : 'restore';
  let preRead: NewestPreRead | null = null;
  let warm: WarmChunks | undefined;
  if (cfg.mode === 'standby' || cfg.mode === 'pool') {
    await target.warmUp?.();
    // a pool host reads nothing of the session before the hand-off: only the store's read path, on bytes of its own
    if (cfg.mode === 'pool') await warmReadPath(workDir);
    else {
      warm = standbyWarms() ? new WarmChunks() : undefined;
      preRead = new NewestPreRead(store, standbyStaleNewest(), warm, (line) => process.stderr.write(`host: ${line}\n`));
      await preRead.start(); // and again on each commit while this host waits
    }
    timeline.mark('standbyReady');
    send({ ev: 'standby-ready', readyMs: Math.round(process.uptime() * 1000) });
    order = await awaitHandOff(); // a fresh session (boot) starts from the hand-off: its start is timed from here
    timeline.mark('handOff');
  }
  if (order === 'boot') {
    preRead?.stop();
    const booting = stopwatch();
    await target.boot();
    send({ ev: 'booted', bootMs: booting() });
    send({ ev: 'target', info: target.describe(), live: true });
  } else {
    // a standby resolves only what was committed after its last pre-read
    restored = await restoreNewest(cfg, preRead?.take() ?? store.newest(), target, store, warm);
  }
  warm?.clear(); // its memory was for the restore
  // Checkpoint only a session that has proven it is alive (and keep the first pause out of the resume path).
  await alive;
  if (restored !== undefined) logRestoreTimeline(target);
  if (cfg.mode === 'clone') return; // it runs on, never writing the session's store, until the runner stops it
  // Delta bases for the first checkpoint, read before it pauses the guest; after the first full heartbeat, so this
  // synchronous work does not delay it (it ends the measured resume). A restored checkpoint is the newest.
  store.warmPageKeys(restored);
  await checkpointLoop(cfg, store, target);
}

/** Restore the store's newest complete checkpoint into `target`, telling the runner when it begins and ends. */
async function restoreNewest(
  cfg: HostConfig,
  newest: Newest,
  target: Target,
  store: Store,
  warm?: WarmChunks,
): Promise<Manifest> {
  const { manifest, skipped } = newest;
  for (const s of skipped) process.stderr.write(`host: restore passed over ${s.problem}\n`);
  if (!manifest) throw new Error(`store ${cfg.storeDir} has no complete checkpoint to restore`);
  const restoring = stopwatch();
  timeline.mark('restoreBegin');
  send({ ev: 'restore-begin', seq: manifest.seq, step: manifest.step });
  if (cfg.injectRestoreDelayMs > 0) await sleep(cfg.injectRestoreDelayMs);
  // TEST-ONLY negative control: a standby that boots a fresh session and claims the checkpoint (session/standby.ts).
  const reader = store.reader(manifest, warm);
  if (cfg.mode === 'standby' && standbySkipsRestore()) await target.boot();
  else await target.restore(reader);
  timeline.mark('restoreEnd');
  const cached = reader.counts.cached ?? 0;
  const own = target.restoreSource?.();
  // read partly from the standby's warm copy: said, as one label (the report counts restores per source)
  const source = cached > 0 && (own === undefined || own === 'store') ? WARM_SOURCE : own;
  if (cached > 0)
    process.stderr.write(
      `host: restore read ${cached} chunks from the warm copy, ${reader.counts.hashed} from the store\n`,
    );
  send({
    ev: 'restore-end',
    seq: manifest.seq,
    step: manifest.step,
    restoreMs: restoring(),
    ...(source ? { source } : {}),
  });
  send({ ev: 'target', info: target.describe(), live: true });
  return manifest;
}

/** Tell the runner why this host fails, then exit. */
function fail(err: unknown): never {
  // A named error keeps its exit code (3: StoreBusyError, the store's lock is held), so the runner can tell a lock
  // conflict or a full disk (the errno code) from a failure of the target.
  const exitCode = err instanceof SoakError ? err.exitCode : 1;
  const code = (err as { code?: unknown } | null)?.code;
  const errno = typeof code === 'string' ? code : (diskErrno(err) ?? undefined);
  const message = err instanceof Error ? err.message : String(err);
  try {
    send({ ev: 'error', message, exitCode, ...(errno !== undefined ? { code: errno } : {}) });
    const trace = err instanceof Error && !(err instanceof ConfigError) ? err.stack : undefined; // bad input: one line
    process.stderr.write(`host: ${trace ?? message}\n`);
  } catch {
    // stdout or the log may be gone (full disk): the exit code still says it
  }
  process.exit(exitCode);
}

// The checkpoint loop never ends: an empty event loop means the target's processes died under a pending call (an
// agent that could not write its handoff on a full disk). Say so, with the disk's state, instead of exiting 0.
process.on('beforeExit', () => {
  const full = [config?.storeDir, config?.scratchDir].find((d) => d !== undefined && diskFull(d));
  fail(
    full !== undefined
      ? Object.assign(new Error(`no space left on device (ENOSPC): the disk of ${full} is full`), { code: 'ENOSPC' })
      : new Error('the target stopped: its processes died with a call pending'),
  );
});
process.on('uncaughtException', fail);
process.on('unhandledRejection', fail);
main().catch(fail);
