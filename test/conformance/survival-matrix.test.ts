// `soak target check --matrix`: real kill/resume trials (real SIGKILLs of real hosts) with the guest-state probe, on
// the process target, the example adapter and gVisor (real runsc: it keeps every class). Negative control: the example
// adapter emptying its /tmp on restore shows tmp-file lost in every trial, and no other class moves. An adapter without
// the probe capability measures nothing: every class not-applicable, with the reason. 3 trials each (the 20
// are the documented run, not the suite's).
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { MatrixRow } from '../../harness/check/survival-matrix.js';
import { describeResult, soakIn } from '../helpers/cli.js';
import { repoRoot } from '../helpers/paths.js';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'soak-target-matrix-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const soak = soakIn(() => tmp, 600_000);
const example = path.join(repoRoot, 'adapters', 'example', 'adapter.mjs');
const TRIALS = '3';
const gvisorUsable = existsSync('/usr/bin/runsc') && process.getuid?.() === 0;

interface MatrixDoc {
  trials: number;
  measured: number;
  modes: Record<string, number>;
  classes: MatrixRow[];
  problems: unknown[];
}

async function matrix(what: string): Promise<MatrixDoc> {
  // the wall clock read again 1 s after each resume (not 5 and 30: the suite's time), where the target can
  const r = await soak('target', 'check', what, '--matrix', '--trials', TRIALS, '--clock-after', '1', '--json');
  expect(r.exitCode, describeResult(r)).toBe(0);
  return JSON.parse(r.stdout) as MatrixDoc;
}

/** class -> "survives/lost/changed/not-applicable" counts. */
const counts = (m: MatrixDoc): Record<string, string> =>
  Object.fromEntries(m.classes.map((c) => [c.class, `${c.survives}/${c.lost}/${c.changed}/${c.notApplicable}`]));

function scenario(name: string, adapterOptions: string, adapter = example): string {
  const file = path.join(tmp, `${name}.yaml`);
  writeFileSync(
    file,
    `name: ${name}\ntarget: exec\nadapter: ${adapter}\nadapterOptions: ${adapterOptions}\nstepMs: 5\ncheckpoint: { everyMs: 1000 }\n`,
  );
  return file;
}

describe.concurrent('soak target check --matrix', () => {
  it('process target: a resume restarts processes; the checkpointed workspace, /tmp, /dev/shm and clocks survive', async () => {
    const m = await matrix('default');
    expect(m).toMatchObject({ trials: 3, measured: 3, modes: { restarted: 3 }, problems: [] });
    const c = counts(m);
    for (const k of ['workspace-unsynced', 'tmp-file', 'shm-file', 'clock-monotonic', 'clock-wall', 'clock-wall-1s'])
      expect(c[k], k).toBe('3/0/0/0');
    // each trial's clone (a second session from the same checkpoint) reads other RNG bytes: fresh processes
    expect(c['clone-entropy']).toBe('3/0/0/0');
    for (const k of ['clock-wall-5s', 'clock-wall-30s']) expect(c[k], k).toBe('0/0/0/3'); // not in --clock-after
    expect(m.classes.find((r) => r.class === 'clock-wall-30s')!.examples[0]).toMatch(/not in --clock-after/);
    for (const k of ['child-process', 'grandchild-process', 'tcp-listener', 'flock', 'pipe', 'timer', 'env', 'umask'])
      expect(c[k], k).toBe('0/3/0/0');
    // the harness's echo outlives the kill, but the connection's holder does not
    expect(c['tcp-peer']).toBe('0/3/0/0');
    expect(m.classes.find((r) => r.class === 'tcp-peer')!.examples[0]).toMatch(/the connection closed with it/);
    const tmpRow = m.classes.find((r) => r.class === 'tmp-file')!;
    expect(tmpRow.interval![0]).toBeGreaterThan(0.4); // Wilson 95% of 3/3: [0.438, 1]
    expect(tmpRow.interval![1]).toBe(1);
  });

  it('negative control: the example adapter emptying its /tmp on restore loses tmp-file in every trial, and only it', async () => {
    const [control, wiped] = await Promise.all([
      matrix(scenario('control', '{}')),
      matrix(scenario('wipe', '{ wipeTmpOnRestore: true }')),
    ]);
    const [a, b] = [counts(control), counts(wiped)];
    expect(a['tmp-file']).toBe('3/0/0/0');
    expect(b['tmp-file']).toBe('0/3/0/0');
    expect(a['tcp-peer']).toBe('0/3/0/0'); // the example adapter restarts the connection's holder too
    expect(wiped.classes.find((r) => r.class === 'tmp-file')!.examples[0]).toMatch(/^lost: .*No such file/);
    expect(Object.keys(a).filter((k) => a[k] !== b[k])).toEqual(['tmp-file']);
    // what the probe made in /dev/shm is removed when the session ends
    const shm = control.classes.find((r) => r.class === 'shm-file')!.examples.map((e) => e.replace(/^survives: /, ''));
    expect(shm).toHaveLength(3);
    for (const f of shm) expect(existsSync(f), f).toBe(false);
  });

  it('an adapter without the probe capability measures nothing: every class not-applicable, with the reason', async () => {
    const builtin = path.join(repoRoot, 'adapters', 'builtin', 'adapter.mjs');
    const m = await matrix(scenario('builtin', '{ target: process }', builtin));
    expect(m.modes).toEqual({ unprobed: 3 });
    for (const r of m.classes) {
      expect(`${r.class} ${r.notApplicable} ${r.n}`).toBe(`${r.class} 3 0`);
      expect(r.interval).toBeNull();
      expect(r.examples[0]).toMatch(/declares no probe capability/);
    }
  });

  // runsc as root (CI installs it); the whole sandbox is restored, so the same holder is asked (mode holder)
  it.skipIf(!gvisorUsable)('gVisor keeps every class: the restored holder answers for all of them', async () => {
    const gvisor = path.join(repoRoot, 'adapters', 'gvisor', 'adapter.mjs');
    const file = path.join(tmp, 'gvisor.yaml');
    writeFileSync(
      file,
      `name: gvisor\ntarget: exec\nadapter: ${gvisor}\nadapterOptions: { rootfs: memory }\nstepMs: 20\n` +
        'checkpoint: { everyMs: 3000 }\nresumeTimeoutMs: 120000\nhostTimeoutMs: 120000\n',
    );
    const m = await matrix(file);
    expect(m).toMatchObject({ measured: 3, modes: { holder: 3 }, problems: [] });
    // every class, but the later clock readings (the adapter protocol has one examination per resume) and the peer
    // outside the sandbox (--network=none: the probe is given none to reach)
    const later = ['clock-wall-1s', 'clock-wall-5s', 'clock-wall-30s', 'tcp-peer'];
    const c = counts(m);
    expect(
      Object.keys(c).every((k) => c[k] === (later.includes(k) ? '0/0/0/3' : '3/0/0/0')),
      JSON.stringify(c),
    ).toBe(true);
  });

  it('a trial the probe cannot set up is listed with its reason, not measured: exit 2 (insufficient)', async () => {
    const long = path.join(tmp, 'k'.repeat(200), 'l'.repeat(200)); // the probe refuses folders of 400+ characters
    mkdirSync(long, { recursive: true });
    const r = await soak('target', 'check', 'default', '--matrix', '--trials', '1', '--json', '--keep', long);
    expect(r.exitCode, describeResult(r)).toBe(2);
    const m = JSON.parse(r.stdout) as MatrixDoc;
    expect(m).toMatchObject({
      trials: 1,
      measured: 0,
      problems: [{ trial: 1, problem: expect.stringMatching(/too long/) as string }],
    });
    expect(m.classes.every((c) => c.n === 0 && c.interval === null)).toBe(true);
  });

  it('refuses a bad --trials and a microvm that cannot run the probe (template boots), in one line, exit 3', async () => {
    const bad = await soak('target', 'check', 'default', '--matrix', '--trials', '0');
    expect(bad.exitCode).toBe(3);
    expect(bad.stderr).toMatch(/--trials: expected an integer from 1 to 10000, got 0/);
    const alone = await soak('target', 'check', 'default', '--trials', '5');
    expect(alone.exitCode).toBe(3);
    expect(alone.stderr).toMatch(/--trials: only with --matrix/);
    const clock = await soak('target', 'check', 'default', '--matrix', '--clock-after', '1,2');
    expect(clock.exitCode).toBe(3);
    expect(clock.stderr).toMatch(/--clock-after: "1,2": expected distinct seconds from 1, 5, 30/);
    const clockAlone = await soak('target', 'check', 'default', '--clock-after', '1');
    expect(clockAlone.exitCode).toBe(3);
    expect(clockAlone.stderr).toMatch(/--clock-after: only with --matrix/);
    const vm = path.join(tmp, 'vm.yaml');
    writeFileSync(vm, 'name: vm\ntarget: microvm\ntargetOptions: { fresh: template }\n');
    const r = await soak('target', 'check', vm, '--matrix', '--trials', '1');
    expect(r.exitCode, describeResult(r)).toBe(3);
    expect(r.stderr).toMatch(/the microvm target probes only with targetOptions.fresh: cold/);
  });
});
