// Unit tests for the QMP client against a scripted unix-socket server: greeting, id matching, events, errors, timeouts.
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { TargetError } from '../../../harness/core/errors.js';
import { type QmpEvent, QmpClient } from '../../../harness/targets/microvm/qmp.js';

type Reply = (msg: { execute: string; id: number; arguments?: unknown }, send: (o: unknown) => void) => void;

const cleanups: Array<() => void> = [];
afterEach(() => {
  while (cleanups.length > 0) cleanups.pop()!();
});

/** A fake QMP server: sends the greeting, answers qmp_capabilities, hands other commands to `reply`. */
async function fakeQmp(reply: Reply): Promise<string> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'qmpt-'));
  const sock = path.join(dir, 'qmp.sock');
  const server = net.createServer((c) => {
    const send = (o: unknown): void => void c.write(`${JSON.stringify(o)}\r\n`);
    send({ QMP: { version: { qemu: { major: 7, minor: 2, micro: 0 } }, capabilities: [] } });
    let buf = '';
    c.on('data', (d) => {
      buf += d.toString();
      let nl: number;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const msg = JSON.parse(buf.slice(0, nl)) as { execute: string; id: number };
        buf = buf.slice(nl + 1);
        if (msg.execute === 'qmp_capabilities') send({ return: {}, id: msg.id });
        else reply(msg, send);
      }
    });
  });
  await new Promise<void>((r) => server.listen(sock, r));
  cleanups.push(() => {
    server.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return sock;
}

describe('QmpClient', () => {
  it('matches replies to commands by id even out of order, and delivers events', async () => {
    const held: Array<() => void> = [];
    const sock = await fakeQmp((msg, send) => {
      if (msg.execute === 'slow') held.push(() => send({ return: { which: 'slow' }, id: msg.id }));
      else {
        send({ event: 'STOP', data: {}, timestamp: { seconds: 1_700_000_000, microseconds: 250_500 } });
        send({ event: 'RESUME' });
        send({ return: { which: msg.execute }, id: msg.id });
        held.forEach((f) => f());
      }
    });
    const qmp = await QmpClient.connect(sock, { timeoutMs: 2000 });
    const events: QmpEvent[] = [];
    qmp.onEvent((e) => events.push(e));
    const slow = qmp.execute<{ which: string }>('slow');
    const fast = qmp.execute<{ which: string }>('stop');
    expect(await fast).toEqual({ which: 'stop' });
    expect(await slow).toEqual({ which: 'slow' });
    expect(events.map((e) => e.event)).toEqual(['STOP', 'RESUME']);
    expect(events[0]!.atMs).toBe(1_700_000_000_250.5); // QMP's wall-clock stamp, in ms: the pause clock starts there
    expect(events[1]!.atMs).toBeUndefined();
    qmp.close();
  });

  it('turns a QMP error into a TargetError naming the command', async () => {
    const sock = await fakeQmp((msg, send) => send({ error: { class: 'GenericError', desc: 'nope' }, id: msg.id }));
    const qmp = await QmpClient.connect(sock, { timeoutMs: 2000 });
    await expect(qmp.execute('cont')).rejects.toThrow(/QMP cont failed: GenericError: nope/);
    qmp.close();
  });

  it('times out a command that gets no answer, and fails pending commands when the connection drops', async () => {
    let drop: () => void = () => {};
    const sock = await fakeQmp((msg) => {
      if (msg.execute === 'hang-up') drop();
    });
    const qmp = await QmpClient.connect(sock, { timeoutMs: 2000 });
    await expect(qmp.execute('query-status', undefined, 50)).rejects.toThrow(/timed out after 50 ms/);
    const pending = qmp.execute('query-migrate');
    drop = () => qmp.close();
    const err = await qmp.execute('hang-up').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TargetError);
    await expect(pending).rejects.toBeInstanceOf(TargetError);
  });

  it('gives up connecting when told the process is gone', async () => {
    await expect(
      QmpClient.connect('/nonexistent/qmp.sock', { timeoutMs: 5000, abortReason: () => 'QEMU exited with code 1' }),
    ).rejects.toThrow(/aborted: QEMU exited with code 1/);
  });
});
