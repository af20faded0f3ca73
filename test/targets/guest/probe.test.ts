// The guest-state probe (vm-images/agent/probe.c), a real static binary on real processes, sockets and files: its
// holder sees every class survive; each class flips when its state is tampered with (so "survives" is measured, not
// assumed); examined from a new process after the holder's SIGKILL, the process-bound classes are lost.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ObservationStatus,
  parseProbeLine,
  type ProbeLine,
  LATER_CLOCKS,
  STATE_CLASS_IDS,
  type StateClass,
} from '../../../harness/check/survival.js';
import { type EchoPeer, PROBE_PEER_ENV, startEchoPeer } from '../../../harness/conformance/echo-peer.js';
import { sleep } from '../../../harness/core/clock.js';
import { pidAlive } from '../../../harness/core/proc.js';
import { buildProbe } from '../../../harness/targets/guest/probe-build.js';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'soak-probe-test-'));
let bin = '';
let echo: EchoPeer;
beforeAll(async () => {
  bin = await buildProbe();
  echo = await startEchoPeer(); // the peer outside the sandbox (tcp-peer), as the matrix runs it
}, 180_000);
afterAll(async () => {
  await echo.close();
  rmSync(tmp, { recursive: true, force: true });
});
/** The classes an examination holds (the later clock readings come as their own `clock` lines). */
const EXAMINED = STATE_CLASS_IDS.filter((c) => !LATER_CLOCKS.includes(c));

/** A running holder: its lines, one at a time, and a way to ask for an examination. */
function holder(name: string, peer?: string): { proc: ChildProcess; dir: string; next: () => Promise<ProbeLine> } {
  const dir = path.join(tmp, name);
  mkdirSync(path.join(dir, 'ws'), { recursive: true });
  const shm = path.join(dir, 'shm');
  mkdirSync(shm, { recursive: true });
  const proc = spawn(bin, ['setup', path.join(dir, 'probe'), '--workspace', path.join(dir, 'ws')], {
    env: { ...process.env, TMPDIR: path.join(dir), SOAK_PROBE_SHM: shm, [PROBE_PEER_ENV]: peer ?? echo.address },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const lines: ProbeLine[] = [];
  const waiters: ((l: ProbeLine) => void)[] = [];
  createInterface({ input: proc.stdout }).on('line', (l) => {
    const parsed = parseProbeLine(JSON.parse(l));
    if (typeof parsed === 'string') throw new Error(parsed);
    const w = waiters.shift();
    if (w) w(parsed);
    else lines.push(parsed);
  });
  const next = (): Promise<ProbeLine> =>
    lines.length > 0 ? Promise.resolve(lines.shift()!) : new Promise((resolve) => waiters.push(resolve));
  return { proc, dir, next };
}

function statuses(line: ProbeLine): Record<StateClass, ObservationStatus> {
  if (line.event !== 'examined') throw new Error(`expected an examination, got ${JSON.stringify(line)}`);
  return Object.fromEntries(line.observations.map((o) => [o.class, o.status])) as Record<StateClass, ObservationStatus>;
}

describe('probe', () => {
  it('its holder finds every class as set up; each tampered class flips, and only it', async () => {
    const h = holder('tamper');
    const ready = await h.next();
    expect(ready.event).toBe('ready');
    h.proc.stdin!.write(`examine ${Date.now()}\n`);
    const before = statuses(await h.next());
    expect(Object.keys(before).sort()).toEqual([...EXAMINED].sort());
    // clone-entropy: one session cannot judge it (the harness compares two: check/clone-entropy.ts)
    expect(EXAMINED.filter((c) => before[c] !== 'survives')).toEqual(['clone-entropy']);

    // tamper: /tmp file gone, /dev/shm file rewritten, the grandchild killed, the wall clock said to be 5 s off
    const token = ready.event === 'ready' ? ready.token : '';
    unlinkSync(path.join(h.dir, `soak-probe-${token}`));
    writeFileSync(path.join(h.dir, 'shm', `soak-probe-${token}`), 'something else\n');
    const rec = spawnSync('cat', [path.join(h.dir, 'probe', 'probe.rec')], { encoding: 'utf8' }).stdout.split(' ');
    const grandchild = Number(rec[5]); // probe.rec: token holder start child start grandchild ...
    process.kill(grandchild, 'SIGKILL');
    while (pidAlive(grandchild)) await sleep(10); // a signal is delivered when the process next runs: wait for it
    h.proc.stdin!.write(`examine ${Date.now() - 5000}\n`);
    const after = statuses(await h.next());
    const flipped = EXAMINED.filter((c) => after[c] !== 'survives' && c !== 'clone-entropy');
    expect(flipped.sort()).toEqual(['clock-wall', 'grandchild-process', 'shm-file', 'tmp-file']);
    expect(after['tmp-file']).toBe('lost');
    expect(after['shm-file']).toBe('changed');
    expect(after['grandchild-process']).toBe('lost');
    expect(after['clock-wall']).toBe('changed');
    h.proc.stdin!.end();
  }, 60_000);

  it('examined by a new process after its holder is SIGKILLed: files kept, process-bound classes lost', async () => {
    const h = holder('restart');
    expect((await h.next()).event).toBe('ready');
    const gone = new Promise((resolve) => h.proc.once('exit', resolve));
    h.proc.kill('SIGKILL');
    await gone;
    const dir = path.join(h.dir, 'probe');
    // the child and grandchild die of their parent's death (PR_SET_PDEATHSIG) when they next run: on a loaded machine
    // that can be after the holder is reaped, so wait for it (a session's examination comes much later than this)
    const rec = readFileSync(path.join(dir, 'probe.rec'), 'utf8').split(' ');
    for (const pid of [Number(rec[3]), Number(rec[5])]) while (pidAlive(pid)) await sleep(10);
    const r = spawnSync(bin, ['examine', dir, '--host-ms', String(Date.now())], { encoding: 'utf8', timeout: 30_000 });
    const line = parseProbeLine(JSON.parse(r.stdout));
    if (typeof line === 'string') throw new Error(line);
    expect(line.event === 'examined' && line.mode).toBe('restarted');
    const s = statuses(line);
    for (const c of ['workspace-unsynced', 'tmp-file', 'shm-file', 'clock-monotonic', 'clock-wall'] as const)
      expect(s[c], c).toBe('survives');
    for (const c of ['tcp-listener', 'flock', 'pipe', 'unix-socketpair', 'timer', 'env', 'cwd', 'umask'] as const)
      expect(s[c], c).toBe('lost');
    // the child dies with the holder (PR_SET_PDEATHSIG), the detached grandchild with the child: nothing leaks
    expect(s['child-process']).toBe('lost');
    expect(s['grandchild-process']).toBe('lost');
    spawnSync(bin, ['cleanup', dir]);
  }, 60_000);

  it("a setup again in the same folder keeps the session's token: a workspace from before it is not 'changed'", async () => {
    const first = holder('again');
    const ready = await first.next();
    const gone = new Promise((resolve) => first.proc.once('exit', resolve));
    const unsynced = path.join(first.dir, 'ws', 'probe-unsynced.txt');
    const checkpointed = readFileSync(unsynced); // what a checkpoint taken now holds
    first.proc.kill('SIGKILL');
    await gone;
    // the restarted session sets up again (process target, example adapter), then is killed before its next checkpoint
    const second = holder('again');
    const again = await second.next();
    expect(again.event === 'ready' && ready.event === 'ready' && again.token === ready.token).toBe(true);
    const gone2 = new Promise((resolve) => second.proc.once('exit', resolve));
    second.proc.kill('SIGKILL');
    await gone2;
    writeFileSync(unsynced, checkpointed); // the restore brings back the checkpoint's workspace
    const dir = path.join(first.dir, 'probe');
    const r = spawnSync(bin, ['examine', dir, '--host-ms', String(Date.now())], { encoding: 'utf8', timeout: 30_000 });
    const line = parseProbeLine(JSON.parse(r.stdout));
    if (typeof line === 'string') throw new Error(line);
    expect(statuses(line)['workspace-unsynced']).toBe('survives');
    spawnSync(bin, ['cleanup', dir]);
    // another session (another folder) gets a token of its own
    const other = holder('other');
    const its = await other.next();
    expect(its.event === 'ready' && ready.event === 'ready' && its.token !== ready.token).toBe(true);
    other.proc.kill('SIGKILL');
    spawnSync(bin, ['cleanup', path.join(other.dir, 'probe')]);
  }, 60_000);

  it('SIGUSR1 asks its holder too (no host reading: the wall clock is not applicable)', async () => {
    const h = holder('signal');
    expect((await h.next()).event).toBe('ready');
    h.proc.kill('SIGUSR1');
    const s = statuses(await h.next());
    expect(s['clock-wall']).toBe('not-applicable');
    expect(EXAMINED.filter((c) => s[c] !== 'survives')).toEqual(['clock-wall', 'clone-entropy']);
    h.proc.stdin!.end();
  }, 60_000);

  it('clone-entropy: each examination reports fingerprints of fresh kernel RNG reads (not the bytes), left to compare', async () => {
    const h = holder('entropy');
    expect((await h.next()).event).toBe('ready');
    const details: string[] = [];
    for (let i = 0; i < 2; i++) {
      h.proc.stdin!.write(`examine ${Date.now()}\n`);
      const line = await h.next();
      const o = line.event === 'examined' ? line.observations.find((x) => x.class === 'clone-entropy') : undefined;
      expect(o?.status, JSON.stringify(line)).toBe('not-applicable');
      details.push(o!.detail);
    }
    const re = /^urandom ([0-9a-f]{16}) getrandom ([0-9a-f]{16}) uuid ([0-9a-f]{16}): one session/;
    const [a, b] = details.map((d) => re.exec(d)?.slice(1));
    expect(a, details[0]).toBeDefined();
    // two reads of a running kernel's RNG never repeat, source by source
    for (let i = 0; i < 3; i++) expect(a![i]).not.toBe(b![i]);
    h.proc.stdin!.end();
  }, 60_000);

  it('a later clock reading (`clock <host ms> <s>`) is its own line, one class; a host 5 s ahead: changed', async () => {
    const h = holder('clock');
    expect((await h.next()).event).toBe('ready');
    h.proc.stdin!.write(`clock ${Date.now()} 1\nclock ${Date.now() + 5000} 30\n`);
    const [one, thirty] = [await h.next(), await h.next()];
    expect(one).toMatchObject({
      event: 'clock',
      after: 1,
      observations: [{ class: 'clock-wall-1s', status: 'survives' }],
    });
    expect(thirty).toMatchObject({
      event: 'clock',
      after: 30,
      observations: [{ class: 'clock-wall-30s', status: 'changed' }],
    });
    h.proc.stdin!.end();
  }, 60_000);

  it('tcp-peer: echoed on the connection made at setup; a hung peer and a reset one are lost, each said so', async () => {
    // a peer that echoes until told to hang, then resets: each state read by the holder's examination
    const conns: import('node:net').Socket[] = [];
    let hang = false;
    const server = (await import('node:net')).createServer((c) => {
      conns.push(c);
      c.on('error', () => {});
      c.on('data', (d) => {
        if (!hang) c.write(d);
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as { port: number }).port;
    const peerStatus = async (h: ReturnType<typeof holder>) => {
      h.proc.stdin!.write(`examine ${Date.now()}\n`);
      const line = await h.next();
      if (line.event !== 'examined') throw new Error(JSON.stringify(line));
      return line.observations.find((o) => o.class === 'tcp-peer')!;
    };
    try {
      const h = holder('peer', `127.0.0.1:${port}`);
      expect((await h.next()).event).toBe('ready');
      expect(await peerStatus(h)).toMatchObject({ status: 'survives' });
      hang = true;
      expect((await peerStatus(h)).detail).toMatch(/: hang: no echo within 2000 ms$/);
      conns[0]!.resetAndDestroy();
      while (!conns[0]!.destroyed) await sleep(10);
      const reset = await peerStatus(h);
      expect(reset.status).toBe('lost');
      expect(reset.detail).toMatch(/reset \(ECONNRESET\)|EPIPE|closed by the peer/);
      h.proc.stdin!.end();
      // no peer named: the target gives the probe no path out of its sandbox
      const none = holder('nopeer', '');
      expect((await none.next()).event).toBe('ready');
      expect(await peerStatus(none)).toMatchObject({ status: 'not-applicable' });
      none.proc.stdin!.end();
    } finally {
      server.close();
    }
  }, 60_000);

  it('refuses bad input with one JSON error line and exit 1 (no record), 3 (usage)', () => {
    const none = spawnSync(bin, ['examine', path.join(tmp, 'nowhere')], { encoding: 'utf8' });
    expect(none.status).toBe(1);
    expect(parseProbeLine(JSON.parse(none.stdout))).toEqual({
      event: 'error',
      message: expect.stringMatching(/no probe record/) as string,
    });
    expect(spawnSync(bin, ['setup'], { encoding: 'utf8' }).status).toBe(3);
  });
});
