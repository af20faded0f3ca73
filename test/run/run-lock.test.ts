// One runner per run folder (issue 30, item 3): the run lock is taken once, refused while its holder lives (naming the
// PID and how to stop it), taken over from a SIGKILLed holder or a recycled PID, and of several real processes racing
// for one stale lock exactly one wins, round after round. A taker that read the stale lock before another took it over
// leaves the new lock alone (the interleaving a naive remove-then-create takeover gets wrong).
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EXIT } from '../../harness/core/errors.js';
import { processStart } from '../../harness/core/proc.js';
import { breakStale, RUN_LOCK_FILE, RunBusyError, RunLock, type RunLockBody } from '../../harness/run/run-lock.js';
import { repoRoot } from '../helpers/paths.js';
import { thrown } from '../helpers/thrown.js';

let dir: string;
const children: ChildProcess[] = [];
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'soak-run-lock-'));
});
afterEach(() => {
  for (const c of children.splice(0)) c.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

/** The (pid, start) of a real process SIGKILLed and reaped: what a SIGKILLed runner leaves in its lock. */
async function deadHolder(): Promise<RunLockBody> {
  const child = spawn('sleep', ['60'], { stdio: 'ignore' });
  await new Promise<void>((resolve, reject) => {
    child.once('spawn', resolve);
    child.once('error', reject);
  });
  const start = processStart(child.pid!);
  expect(start).not.toBeNull();
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
  return { pid: child.pid!, start, purpose: 'soak run', at: 'then' };
}

const lockFile = (): string => path.join(dir, RUN_LOCK_FILE);
const holderOf = (): RunLockBody => JSON.parse(readFileSync(lockFile(), 'utf8')) as RunLockBody;

describe('RunLock', () => {
  it('is taken with this process identity and released; a second taker is refused with the PID and kill -TERM', () => {
    const lock = RunLock.acquire(dir, 'soak run');
    expect(holderOf()).toMatchObject({ pid: process.pid, start: processStart(process.pid), purpose: 'soak run' });
    const err = thrown(() => RunLock.acquire(dir, 'soak run --resume'));
    expect(err).toBeInstanceOf(RunBusyError);
    expect(err instanceof RunBusyError && err.exitCode).toBe(EXIT.badInput);
    expect(err.message).toContain(`PID ${process.pid} (soak run, since `);
    expect(err.message).toContain(`kill -TERM ${process.pid}`);
    expect(err.message).not.toContain('\n');
    lock.release();
    expect(existsSync(lockFile())).toBe(false);
    RunLock.acquire(dir, 'again').release();
  });

  it('takes over the lock of a SIGKILLed holder, and of a recycled PID (a live PID with another start time)', async () => {
    const dead = await deadHolder();
    writeFileSync(lockFile(), JSON.stringify(dead));
    const lock = RunLock.acquire(dir, 'soak run --resume');
    expect(holderOf().pid).toBe(process.pid);
    lock.release();
    writeFileSync(lockFile(), JSON.stringify({ ...dead, pid: process.pid, start: '1' }));
    RunLock.acquire(dir, 'soak run --resume').release();
    expect(readdirSync(dir)).toEqual([]); // no break file left behind
  });

  it('refuses an unreadable lock file (never taken for stale) and names it: empty, or a PID that is no process', () => {
    for (const text of ['', JSON.stringify({ pid: -1, start: null, purpose: 'x', at: 'then' })]) {
      writeFileSync(lockFile(), text);
      const err = thrown(() => RunLock.acquire(dir, 'soak run'));
      expect(err).toBeInstanceOf(RunBusyError);
      expect(err.message).toContain(`unreadable lock file ${lockFile()}`);
    }
  });

  it("quotes a live holder's purpose without its control or bidirectional characters", () => {
    const body = { pid: process.pid, start: processStart(process.pid), purpose: 'x\u202e\u001b[2Jy', at: 'now\n' };
    writeFileSync(lockFile(), JSON.stringify(body));
    const err = thrown(() => RunLock.acquire(dir, 'soak run'));
    expect(err.message).toContain(`PID ${process.pid} (x??[2Jy, since now?)`);
  });

  it('a taker that read the stale lock before another took it over leaves the new lock alone', async () => {
    const dead = await deadHolder();
    writeFileSync(lockFile(), JSON.stringify(dead));
    // taker B reads the stale lock ... then taker A takes it over ... then B goes on to break what it read
    const lateRead = JSON.parse(readFileSync(lockFile(), 'utf8')) as RunLockBody;
    const a = RunLock.acquire(dir, 'taker A');
    expect(breakStale(lockFile(), lateRead, JSON.stringify({ ...lateRead, pid: 1 }))).toBe('broken');
    expect(holderOf().purpose).toBe('taker A');
    expect(() => RunLock.acquire(dir, 'taker B')).toThrow(RunBusyError);
    a.release();
  });

  it('a taker SIGKILLed while breaking a stale lock does not block the next one (the next generation)', async () => {
    const dead = await deadHolder();
    const deadTaker = await deadHolder();
    writeFileSync(lockFile(), JSON.stringify(dead));
    const breakFile = path.join(dir, `${RUN_LOCK_FILE}.break-${dead.pid}-${dead.start}-1`);
    writeFileSync(breakFile, JSON.stringify(deadTaker));
    const lock = RunLock.acquire(dir, 'soak run --resume');
    expect(holderOf().pid).toBe(process.pid);
    expect(existsSync(breakFile)).toBe(false); // swept: its taker is dead and the stale lock gone
    lock.release();
  });
});

/** A child process that takes the lock of the folder it is told, says won or lost, and holds it until told. */
class Taker {
  readonly child: ChildProcess;
  private readonly lines: AsyncIterator<string>;

  constructor() {
    const lockModule = path.join(repoRoot, 'dist', 'harness', 'run', 'run-lock.js');
    const script = `
      import { RunLock } from ${JSON.stringify(lockModule)};
      import { createInterface } from 'node:readline';
      let held = null;
      process.stdout.write('ready\\n');
      for await (const line of createInterface({ input: process.stdin })) {
        if (line.startsWith('go ')) {
          try { held = RunLock.acquire(line.slice(3), 'racer ' + process.pid); process.stdout.write('won\\n'); }
          catch (err) { process.stdout.write((err.name === 'RunBusyError' ? 'lost ' : 'error ') + err.message + '\\n'); }
        } else if (line === 'release') { held?.release(); held = null; process.stdout.write('released\\n'); }
      }`;
    this.child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['pipe', 'pipe', 'inherit'] });
    children.push(this.child);
    this.lines = createInterface({ input: this.child.stdout! })[Symbol.asyncIterator]();
  }

  async next(): Promise<string> {
    const r = await this.lines.next();
    if (r.done) throw new Error(`taker ${this.child.pid} ended`);
    return r.value;
  }

  say(line: string): void {
    this.child.stdin!.write(`${line}\n`);
  }
}

describe('real processes racing for one stale lock', () => {
  const takers: Taker[] = [];
  afterAll(() => {
    for (const t of takers) t.child.stdin?.end();
  });

  it('exactly one of 6 takers wins, in each of 40 rounds; the others are told the winner PID', async () => {
    if (!existsSync(path.join(repoRoot, 'dist', 'harness', 'run', 'run-lock.js'))) throw new Error('build first');
    for (let i = 0; i < 6; i++) takers.push(new Taker());
    for (const t of takers) expect(await t.next()).toBe('ready');
    for (let round = 0; round < 40; round++) {
      const folder = path.join(dir, `run-${round}`);
      const dead = await deadHolder();
      plantStale(folder, dead);
      for (const t of takers) t.say(`go ${folder}`); // all at once: each starts on its own core's turn
      const answers = await Promise.all(takers.map((t) => t.next()));
      const winners = takers.filter((_, i) => answers[i] === 'won');
      expect(
        answers.filter((a) => a.startsWith('error')),
        answers.join('\n'),
      ).toEqual([]);
      expect(winners, answers.join('\n')).toHaveLength(1);
      const winner = winners[0]!.child.pid!;
      expect(JSON.parse(readFileSync(path.join(folder, RUN_LOCK_FILE), 'utf8'))).toMatchObject({ pid: winner });
      for (const a of answers.filter((x) => x !== 'won')) expect(a).toContain(`PID ${winner} (racer ${winner}`);
      for (const t of takers) t.say('release');
      for (const t of takers) expect(await t.next()).toBe('released');
      expect(readdirSync(folder)).toEqual([]);
    }
  }, 60_000);
});

/** A new run folder holding the stale lock of `dead`. */
function plantStale(folder: string, dead: RunLockBody): void {
  mkdirSync(folder);
  writeFileSync(path.join(folder, RUN_LOCK_FILE), JSON.stringify(dead));
}
