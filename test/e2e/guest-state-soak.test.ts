// Guest state in a soak (issue 33), real `soak run`s judged by gate 10 alone (--gates-dir): every resume journals the
// probe's examination (guest-state events), summary.json carries the tally, the report's "Durability limits" names
// the classes measured lost, and the verdict opens with what it covers. Negative control: the example adapter that
// empties /tmp on restore fails gate 10 (exit 1) when it promises tmp-file, and the same adapter without the wipe
// passes it (exit 0). A promise naming no class is refused before any run folder (exit 3, one line).
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { GuestStateSummary } from '../../harness/analysis/guest-state-tally.js';
import type { JournalEvent } from '../../harness/journal/events.js';
import { describeResult, runSoak, writeScenario } from '../helpers/cli.js';
import { repoRoot } from '../helpers/paths.js';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'soak-guest-state-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const gatesDir = path.join(tmp, 'gates');
mkdirSync(gatesDir);
copyFileSync(
  path.join(repoRoot, 'gates', '10-documented-guest-state.yaml'),
  path.join(gatesDir, '10-documented-guest-state.yaml'),
);
const example = path.join(repoRoot, 'adapters', 'example', 'adapter.mjs');

function scenario(name: string, target: string[], promises: string, cycles: number): string {
  return writeScenario(tmp, name, [
    ...target,
    `promises: ${promises}`,
    `cycles: ${cycles}`,
    'seed: 1',
    'stepMs: 5',
    'checkpoint: { everyMs: 100 }',
    'kill: { phases: { work: 1 }, workDelayMs: [300, 500] }',
    'resumeTimeoutMs: 30000',
  ]);
}

interface Ran {
  exitCode: number | undefined;
  stderr: string;
  events: JournalEvent[];
  summary: { guestState?: GuestStateSummary; gates: { id: number; verdict: string; n: number }[] };
  md: string;
}

async function soak(file: string): Promise<Ran> {
  const out = path.join(tmp, path.basename(file, '.yaml'));
  const reports = path.join(out, 'reports');
  const args = ['run', '--scenario', file, '--out', out, '--report-dir', reports, '--gates-dir', gatesDir];
  const r = await runSoak(args, { timeoutMs: 300_000 });
  const runDir = path.join(
    out,
    readdirSync(out).find((d) => d !== 'latest' && d !== 'reports')!,
  );
  const report = path.join(reports, readdirSync(reports)[0]!);
  return {
    exitCode: r.exitCode,
    stderr: describeResult(r),
    events: readFileSync(path.join(runDir, 'journal.ndjson'), 'utf8')
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as JournalEvent),
    summary: JSON.parse(readFileSync(path.join(report, 'summary.json'), 'utf8')) as Ran['summary'],
    md: readFileSync(path.join(report, 'summary.md'), 'utf8'),
  };
}
const guestEvents = (r: Ran) => r.events.flatMap((e) => (e.type === 'guest-state' ? [e] : []));
const execTarget = (wipe: boolean) => [
  'target: exec',
  `adapter: ${example}`,
  ...(wipe ? ['adapterOptions: { wipeTmpOnRestore: true }'] : []),
];
const PROMISED = '[tmp-file, shm-file, workspace-unsynced, clock-monotonic]';

describe('guest state in a soak', () => {
  it('the example adapter that empties /tmp on restore fails gate 10 when it promises tmp-file (exit 1)', async () => {
    const r = await soak(scenario('wiped', execTarget(true), PROMISED, 6));
    expect(r.exitCode, r.stderr).toBe(1);
    const events = guestEvents(r);
    expect(events.length).toBeGreaterThan(0);
    const examined = events.filter((e) => e.mode === 'restarted' || e.mode === 'holder');
    expect(examined.length).toBeGreaterThan(0);
    for (const e of examined) expect(e.observations.find((o) => o.class === 'tmp-file')?.status).toBe('lost');
    const g = r.summary.guestState!;
    expect(g.classes.find((c) => c.class === 'tmp-file')).toMatchObject({ survives: 0, lost: g.examined });
    expect(r.summary.gates.find((x) => x.id === 10)).toMatchObject({ verdict: 'fail', n: g.examined * 4 });
    expect(r.md).toMatch(new RegExp(`tmp-file \\(a file in /tmp.*\\): lost in ${g.examined}/${g.examined} resumes`));
    expect(r.md).toContain('promised: gate 10 fails');
  }, 300_000);

  it('the same adapter without the wipe keeps its promises and passes gate 10 (exit 0)', async () => {
    const r = await soak(scenario('kept', execTarget(false), PROMISED, 10));
    const g = r.summary.guestState!;
    expect(g.examined * 4, 'gate 10 needs 20 observations: five examined resumes').toBeGreaterThanOrEqual(20);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.summary.gates.find((x) => x.id === 10)).toMatchObject({ verdict: 'pass', n: g.examined * 4 });
    expect(g.promisedKept.successes).toBe(g.promisedKept.trials);
    // lost but not promised: a measured limit in the report, no failure
    expect(g.classes.find((c) => c.class === 'child-process')?.lost).toBe(g.examined);
    expect(r.md).toMatch(
      /child-process \(.*\): lost in \d+\/\d+ resumes.*not promised: a measured limit, not a failure/,
    );
    expect(r.md).toMatch(
      /This verdict covers: the workload's three chains .* and the promised classes tmp-file, shm-file/,
    );
    expect(r.md).toMatch(/it does not cover: classes measured lost or changed \([^)]*child-process/);
  }, 300_000);

  it('the process target journals its examinations and the report names what it lost', async () => {
    const r = await soak(scenario('process', ['target: process'], '[workspace-unsynced]', 6));
    expect([0, 2], r.stderr).toContain(r.exitCode); // 2: too few resumes for gate 10's minN
    const events = guestEvents(r);
    expect(events.some((e) => e.mode === 'restarted')).toBe(true);
    const g = r.summary.guestState!;
    expect(g.examined + g.unexamined).toBe(events.length);
    expect(g.classes.find((c) => c.class === 'workspace-unsynced')).toMatchObject({ survives: g.examined });
    expect(g.classes.find((c) => c.class === 'tcp-listener')).toMatchObject({ lost: g.examined });
    expect(r.md).toMatch(/tcp-listener \(.*\): lost in \d+\/\d+ resumes/);
    expect(r.md).toMatch(/\| tcp-listener \| 0\/\d+ \| \d+ \| 0 \| 0 \|/); // the matrix, in every report that probed
    expect(r.md).toMatch(/\| workspace-unsynced \| (\d+)\/\1 \| 0 \| 0 \| 0 \| .* \| yes \|/);
  }, 300_000);

  it("an adapter's describe promises turn the probe on and are judged; a malformed one is an adapter fault", async () => {
    const source = readFileSync(example, 'utf8');
    expect(source).toContain("probe: { runs: 'binary' },");
    const promising = (list: string): string => {
      const file = path.join(tmp, `adapter-${list.replace(/\W/g, '')}.mjs`);
      writeFileSync(
        file,
        source.replace("probe: { runs: 'binary' },", `probe: { runs: 'binary' }, promises: ${list},`),
      );
      return file;
    };
    const wiped = [
      'target: exec',
      `adapter: ${promising("['tmp-file']")}`,
      'adapterOptions: { wipeTmpOnRestore: true }',
    ];
    const file = writeScenario(tmp, 'adapter-promise', [
      ...wiped, // no probe, no promises in the scenario: the adapter's promise turns the probe on
      'cycles: 4',
      'seed: 1',
      'stepMs: 5',
      'checkpoint: { everyMs: 100 }',
      'kill: { phases: { work: 1 }, workDelayMs: [300, 500] }',
    ]);
    const r = await soak(file);
    expect(r.exitCode, r.stderr).toBe(1);
    expect(r.summary.guestState?.promised).toEqual(['tmp-file']);
    const start = r.events.find((e) => e.type === 'run-start');
    expect(start?.type === 'run-start' && start.scenario.probe, 'journaled as run: a --resume probes alike').toBe(true);
    expect(r.summary.gates.find((x) => x.id === 10)?.verdict).toBe('fail');

    const bad = scenario('adapter-bad-promise', ['target: exec', `adapter: ${promising("['tmpfile']")}`], '[]', 2);
    const out = path.join(tmp, 'adapter-bad-promise');
    const b = await runSoak(['run', '--scenario', bad, '--out', out], { timeoutMs: 120_000 });
    expect(b.exitCode, describeResult(b)).toBe(5);
    expect(b.stderr).toContain('promises');
    // nor may an adapter promise a later clock reading (a soak does not take it): an adapter fault too
    const late = scenario(
      'adapter-late-promise',
      ['target: exec', `adapter: ${promising("['clock-wall-30s']")}`],
      '[]',
      2,
    );
    const c = await runSoak(['run', '--scenario', late, '--out', path.join(tmp, 'adapter-late-promise')], {
      timeoutMs: 120_000,
    });
    expect(c.exitCode, describeResult(c)).toBe(5);
    expect(c.stderr).toContain('promises');
  }, 300_000);

  it('refuses a promise that names no class, before any run folder (exit 3, one line)', async () => {
    const file = scenario('bad-promise', execTarget(false), '[tmp-file, tmpfile]', 2);
    const out = path.join(tmp, 'bad-promise');
    const r = await runSoak(['run', '--scenario', file, '--out', out], { timeoutMs: 60_000 });
    expect(r.exitCode, describeResult(r)).toBe(3);
    const lines = r.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('promises[1]: "tmpfile" is not a class of guest state');
    expect(existsSync(out)).toBe(false);
    // a later clock reading is a class, but a soak reads the wall clock once: promising one is refused alike
    const later = scenario('later-clock-promise', execTarget(false), '[clock-wall-5s]', 2);
    const out2 = path.join(tmp, 'later-clock-promise');
    const l = await runSoak(['run', '--scenario', later, '--out', out2], { timeoutMs: 60_000 });
    expect(l.exitCode, describeResult(l)).toBe(3);
    expect(l.stderr.trim().split('\n')).toHaveLength(1);
    expect(l.stderr).toContain(
      'promises[0]: "clock-wall-5s" is read only by `soak target check --matrix --clock-after`',
    );
    expect(existsSync(out2)).toBe(false);
  }, 120_000);

  it('refuses the probe on a micro-VM that boots from a template (exit 3, one line, no run folder)', async () => {
    const file = path.join(tmp, 'vm-template.yaml');
    writeFileSync(file, 'name: vm-template\ntarget: microvm\nprobe: true\ntargetOptions: { fresh: template }\n');
    const out = path.join(tmp, 'vm-template');
    const r = await runSoak(['run', '--scenario', file, '--out', out], { timeoutMs: 60_000 });
    expect(r.exitCode, describeResult(r)).toBe(3);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain('the microvm target probes only with targetOptions.fresh: cold');
    expect(existsSync(out)).toBe(false);
  }, 120_000);
});
