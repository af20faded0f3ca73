// RAM + device state transfer over QMP migration on a unix socket: save into a file, load from a stream of chunks.
import { existsSync, rmSync, statSync } from 'node:fs';
import net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { SoakError, TargetError } from '../../core/errors.js';
import type { QmpClient } from './qmp.js';

interface MigrationInfo {
  status?: string;
  'error-desc'?: string;
}

/** Lift the default 128 MiB/s migration cap so the transfer, not the throttle, sets the pause. */
export async function raiseMigrationBandwidth(qmp: QmpClient): Promise<void> {
  await qmp.execute('migrate-set-parameters', { 'max-bandwidth': 64 * 2 ** 30, 'downtime-limit': 2000 });
}

/** Poll query-migrate until completed; throws on failed/cancelled or timeout. */
async function waitMigration(
  qmp: QmpClient,
  what: string,
  deadline: number,
  giveUp: () => string | undefined,
): Promise<void> {
  for (;;) {
    const info = await qmp.execute<MigrationInfo>('query-migrate');
    if (info.status === 'completed') return;
    if (info.status === 'failed' || info.status === 'cancelled') {
      throw new TargetError(`${what}: migration ${info.status}${info['error-desc'] ? `: ${info['error-desc']}` : ''}`);
    }
    const reason = giveUp();
    if (reason !== undefined) throw new TargetError(`${what}: ${reason}`);
    if (Date.now() > deadline)
      throw new TargetError(`${what}: migration not completed within the timeout (status ${info.status ?? 'none'})`);
    await sleep(5);
  }
}

/** How long cat may take to write the pipe's last bytes and rename the file after QEMU finished the save. */
const CAT_FINISH_MS = 5000;

/**
 * Save the guest's RAM + device state into `file`: QEMU writes the stream through `cat` straight into it (a `.partial`
 * file renamed when cat is done), with no copy through Node. On a Firecracker guest every fresh page Node's socket
 * reads allocate is slow to fault in, which put much of the stream's save inside the guest's pause; `cat` writes into
 * the page cache without that (bench/README.md). Returns the stream's size; `onCompleted` runs as soon
 * as QEMU says the save is complete (cat may still be writing: we wait for the rename after it). `_socketPath` is
 * unused (kept for the callers' shape).
 */
export async function migrateToFile(
  qmp: QmpClient,
  _socketPath: string,
  file: string,
  timeoutMs: number,
  onCompleted?: () => Promise<void>,
): Promise<number> {
  const partial = `${file}.partial`;
  const failed = `${file}.failed`;
  for (const f of [file, partial, failed]) rmSync(f, { force: true });
  const q = (f: string): string => `'${f.replaceAll("'", `'\\''`)}'`;
  try {
    const deadline = Date.now() + timeoutMs;
    await qmp.execute('migrate', {
      uri: `exec:cat > ${q(partial)} && mv ${q(partial)} ${q(file)} || : > ${q(failed)}`,
    });
    await waitMigration(qmp, 'saving RAM state', deadline, () => undefined);
    if (onCompleted !== undefined) await onCompleted();
    // QEMU has written everything into the pipe: cat has at most the pipe's buffer left (a full disk may even stop it
    // from leaving the failure mark, hence the bound).
    const catDeadline = Math.min(deadline, Date.now() + CAT_FINISH_MS);
    for (;;) {
      if (existsSync(file)) return statSync(file).size;
      if (existsSync(failed))
        throw new TargetError(`saving RAM state: writing ${file} failed (cat or mv exited non-zero)`);
      if (Date.now() > catDeadline)
        throw new TargetError(`saving RAM state: ${file} was not complete ${CAT_FINISH_MS} ms after QEMU finished`);
      await sleep(2);
    }
  } catch (err) {
    // A QEMU that died closed the pipe: let cat and mv finish (bounded) so nothing they write outlives the cleanup.
    const until = Date.now() + 2000;
    while (existsSync(partial) && !existsSync(file) && !existsSync(failed) && Date.now() < until) await sleep(5);
    for (const f of [file, partial, failed]) rmSync(f, { force: true });
    throw err;
  }
}

/**
 * Save the guest's RAM + device state into `consume` as QEMU writes it (e.g. straight into the store, hashed
 * inline: no file, no second read). Returns the stream size in bytes; throws a TargetError if the migration or the
 * consumer fails (a consumer's SoakError, such as a store error, keeps its class). `onCompleted` runs as soon as QEMU
 * says the save is complete (all of it is written to the socket), while we may still be reading the stream: the guest
 * can be resumed there instead of after the last byte reached `consume`.
 */
export async function migrateInto(
  qmp: QmpClient,
  socketPath: string,
  consume: (stream: AsyncIterable<Buffer>) => Promise<unknown>,
  timeoutMs: number,
  onCompleted?: () => Promise<void>,
): Promise<number> {
  rmSync(socketPath, { force: true });
  const server = net.createServer();
  let bytes = 0;
  let failure: string | undefined;
  let consumerError: unknown;
  const received = new Promise<void>((resolve, reject) => {
    server.once('connection', (conn: net.Socket) => {
      server.close();
      const counted = (async function* () {
        for await (const c of conn as AsyncIterable<Buffer>) {
          bytes += c.length;
          yield c;
        }
      })();
      consume(counted).then(
        () => resolve(),
        (err: unknown) => {
          conn.destroy();
          consumerError = err;
          failure = `migration stream broke: ${err instanceof Error ? err.message : String(err)}`;
          reject(err instanceof SoakError ? err : new TargetError(`saving RAM state: ${failure}`, { cause: err }));
        },
      );
    });
  });
  received.catch(() => {});
  await new Promise<void>((resolve, reject) => server.listen(socketPath, resolve).once('error', reject));
  try {
    const deadline = Date.now() + timeoutMs;
    await qmp.execute('migrate', { uri: `unix:${socketPath}` });
    await waitMigration(qmp, 'saving RAM state', deadline, () => failure);
    if (onCompleted !== undefined) await onCompleted();
    const timer = new AbortController();
    try {
      await Promise.race([
        received,
        sleep(Math.max(0, deadline - Date.now()), undefined, { signal: timer.signal }).then(() => {
          throw new TargetError('saving RAM state: stream did not end after migration completed');
        }),
      ]);
    } finally {
      timer.abort(); // do not keep the event loop alive for the rest of the timeout
    }
    return bytes;
  } catch (err) {
    if (consumerError instanceof SoakError) throw consumerError; // e.g. the store's own error, with its exit code
    throw err;
  } finally {
    server.close();
    rmSync(socketPath, { force: true });
  }
}

/** Load RAM + device state into a QEMU started with `-incoming defer`: it listens, we connect and stream `data`. */
export async function migrateFromStream(
  qmp: QmpClient,
  socketPath: string,
  data: AsyncIterable<Uint8Array>,
  timeoutMs: number,
): Promise<number> {
  rmSync(socketPath, { force: true });
  const deadline = Date.now() + timeoutMs;
  await qmp.execute('migrate-incoming', { uri: `unix:${socketPath}` });
  const conn = await new Promise<net.Socket>((resolve, reject) => {
    const s = net.createConnection({ path: socketPath });
    s.once('connect', () => resolve(s));
    s.once('error', reject);
  }).catch((err: unknown) => {
    const why = err instanceof Error ? err.message : String(err);
    throw new TargetError(`loading RAM state: cannot connect to QEMU's incoming socket ${socketPath}: ${why}`, {
      cause: err,
    });
  });
  let bytes = 0;
  let failure: string | undefined;
  let cause: unknown;
  const sent = sendPieces(data, conn, (n) => (bytes += n)).catch((err: unknown) => {
    // QEMU closes its end once it has read the stream's end marker, possibly before we have sent the end:
    // a closed connection is judged by QEMU's own status (completed or failed), a failed source at once.
    if (connectionClosed(err)) return;
    cause = err;
    failure = `stream to QEMU broke: ${err instanceof Error ? err.message : String(err)}`;
  });
  try {
    await waitMigration(qmp, 'loading RAM state', deadline, () => failure);
    await sent;
    return bytes;
  } catch (err) {
    // A store error (e.g. IntegrityError on a corrupt chunk) keeps its own class and exit code.
    if (cause instanceof SoakError) throw cause;
    throw err;
  } finally {
    conn.destroy();
    rmSync(socketPath, { force: true });
  }
}

/**
 * Write `data`'s pieces to `conn` in order, then end it. A piece's write is done (its callback called: the bytes are
 * in the kernel) before the piece after the next one is asked for, so the source may hand out reused buffers
 * (StreamOptions.reuse); one write stays in flight while the next piece is made.
 */
export async function sendPieces(
  data: AsyncIterable<Uint8Array>,
  conn: net.Socket,
  sent: (n: number) => void,
): Promise<void> {
  const write = (piece: Uint8Array): Promise<void> =>
    new Promise((resolve, reject) => conn.write(piece, (err) => (err ? reject(err) : resolve())));
  conn.on('error', () => {}); // reported through the write callbacks
  let inFlight: Promise<void> | undefined;
  try {
    for await (const piece of data) {
      if (inFlight !== undefined) await inFlight;
      sent(piece.length);
      inFlight = write(piece);
    }
    if (inFlight !== undefined) await inFlight;
  } catch (err) {
    inFlight?.catch(() => {}); // the source failed with a write in flight: its outcome no longer matters
    throw err;
  }
  await new Promise<void>((resolve) => conn.end(resolve));
}

/** A write error that only says the peer closed the socket (not a failure of the data's source). */
function connectionClosed(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === 'ERR_STREAM_PREMATURE_CLOSE' || code === 'EPIPE' || code === 'ECONNRESET';
}
