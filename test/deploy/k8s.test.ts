// Every manifest under deploy/k8s/ validates against the Kubernetes 1.27 schemas (kubernetes-models 4.5.1) and keeps
// the nightly pipeline's rules (Indexed shards, a failure policy, CPU limits = requests, a grace period for SIGTERM);
// and the CronJobs' container commands work as written (issue 32): played in order (every shard pod, then the finish
// pod: test/helpers/k8s-player.ts) against the image's app as deploy/container/build.sh stages it and a local folder
// standing in for the volume, with the manifests' env (CYCLES and NIGHTLY_RUN_ARGS shortened: 4 shards x 2 cycles).
// The microvm pair runs the same commands (checked here; SOAK_E2E_K8S_MICROVM=1 plays it: it builds a guest image).
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { CronJob } from 'kubernetes-models/batch/v1';
import { PersistentVolumeClaim } from 'kubernetes-models/v1';
import { parseAllDocuments } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { playCronJob, readContainerfile, type PodRun } from '../helpers/k8s-player.js';
import { repoRoot } from '../helpers/paths.js';
import { validatorFor } from '../helpers/schemas.js';

interface Manifest {
  file: string;
  doc: Record<string, unknown>;
}

const k8sDir = path.join(repoRoot, 'deploy', 'k8s');

/** Every YAML document in deploy/k8s/. */
function manifests(): Manifest[] {
  return readdirSync(k8sDir)
    .filter((f) => f.endsWith('.yaml'))
    .flatMap((file) =>
      parseAllDocuments(readFileSync(path.join(k8sDir, file), 'utf8')).map((d) => ({
        file,
        doc: d.toJS() as Record<string, unknown>,
      })),
    );
}

type Validatable = new (data: never) => { validate(): void };

/** The kubernetes-models class of each apiVersion and kind the manifests use. */
const MODELS: Record<string, Validatable> = {
  'batch/v1 CronJob': CronJob,
  'v1 PersistentVolumeClaim': PersistentVolumeClaim,
};

/** Validate one object with the kubernetes-models class for its apiVersion and kind; throws what the schema says. */
function validate(doc: Record<string, unknown>): void {
  const key = `${String(doc['apiVersion'])} ${String(doc['kind'])}`;
  const Model = MODELS[key];
  if (Model === undefined) throw new Error(`no kubernetes-models class listed for ${key}`);
  new Model(doc as never).validate();
}

/** The pod specs in a manifest (CronJob -> Job -> Pod), with the Job spec around each. */
function jobs(doc: Record<string, unknown>): { job: JobSpec; pod: PodSpec }[] {
  if (doc['kind'] !== 'CronJob') return [];
  const job = (doc as unknown as { spec: { jobTemplate: { spec: JobSpec } } }).spec.jobTemplate.spec;
  return [{ job, pod: job.template.spec }];
}

interface JobSpec {
  completionMode?: string;
  backoffLimitPerIndex?: number;
  activeDeadlineSeconds?: number;
  podFailurePolicy?: { rules: { action: string; onExitCodes?: { values: number[] } }[] };
  template: { spec: PodSpec };
}

interface PodSpec {
  terminationGracePeriodSeconds?: number;
  containers: {
    name: string;
    resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
    env?: { name: string; value?: string; valueFrom?: { fieldRef?: { fieldPath: string } } }[];
  }[];
}

describe('deploy/k8s manifests', () => {
  const all = manifests();

  it('are there: the PVC, the shard and finish CronJobs, the microvm pair', () => {
    expect(all.map((m) => `${m.file}:${String(m.doc['kind'])}`).sort()).toEqual([
      'cronjob-finish.yaml:CronJob',
      'cronjob-microvm.yaml:CronJob',
      'cronjob-microvm.yaml:CronJob',
      'cronjob-shards.yaml:CronJob',
      'pvc.yaml:PersistentVolumeClaim',
    ]);
  });

  it.each(all.map((m, i) => [`${m.file} #${i}`, m.doc] as const))('%s validates against the schema', (_n, doc) => {
    expect(() => {
      validate(doc);
    }).not.toThrow();
  });

  it('negative control: a planted wrong field type is caught', () => {
    const shards = all.find((m) => m.file === 'cronjob-shards.yaml')!.doc;
    const planted = structuredClone(shards);
    const job = (planted as unknown as { spec: { jobTemplate: { spec: Record<string, unknown> } } }).spec.jobTemplate;
    job.spec['completions'] = 'four';
    expect(() => validate(planted)).toThrow(/completions/);
    const wrongAction = structuredClone(shards);
    jobs(wrongAction)[0]!.job.podFailurePolicy!.rules[0]!.action = 'Retry';
    expect(() => validate(wrongAction)).toThrow(/action/);
  });

  it('shard Jobs are Indexed, retry per index, fail fast on 3 and 4, and let SIGTERM write the journal', () => {
    const shardJobs = all.flatMap((m) => jobs(m.doc)).filter((j) => j.job.completionMode === 'Indexed');
    expect(shardJobs).toHaveLength(2);
    for (const { job, pod } of shardJobs) {
      expect(job.backoffLimitPerIndex).toBeGreaterThanOrEqual(1);
      expect(job.activeDeadlineSeconds).toBeGreaterThan(0);
      const codes = job.podFailurePolicy!.rules.flatMap((r) =>
        (r.onExitCodes?.values ?? []).map((c) => `${c}:${r.action}`),
      );
      expect(codes.sort()).toEqual(['3:FailJob', '4:FailIndex']);
      expect(pod.terminationGracePeriodSeconds).toBeGreaterThanOrEqual(120);
    }
  });

  it('every container has CPU limits equal to its requests (Guaranteed QoS)', () => {
    const containers = all.flatMap((m) => jobs(m.doc)).flatMap((j) => j.pod.containers);
    expect(containers.length).toBeGreaterThanOrEqual(4);
    for (const c of containers) {
      expect(c.resources?.limits?.['cpu'], c.name).toBe(c.resources?.requests?.['cpu']);
      expect(c.resources?.limits?.['memory'], c.name).toBe(c.resources?.requests?.['memory']);
    }
  });

  it('every pod takes the night from its CronJob (the Job name, one value for all shards), never its own start date', () => {
    const containers = all.flatMap((m) => jobs(m.doc)).flatMap((j) => j.pod.containers);
    for (const c of containers) {
      const env = c.env ?? [];
      expect(env.find((e) => e.name === 'NIGHT_JOB_NAME')?.valueFrom?.fieldRef?.fieldPath, c.name).toBe(
        "metadata.labels['batch.kubernetes.io/job-name']",
      );
      expect(
        env.find((e) => e.name === 'NIGHT_KEY'),
        c.name,
      ).toBeUndefined(); // a fixed key would repeat one night
    }
  });
});

const image = readContainerfile(readFileSync(path.join(repoRoot, 'deploy', 'container', 'Containerfile'), 'utf8'));
const NIGHT = '2026-11-30';
const SHORT = { CYCLES: '8', NIGHTLY_RUN_ARGS: '--boot-samples 0' };
const cronJob = (file: string, target?: string): Parameters<typeof playCronJob>[0] =>
  manifests().find(
    (m) => m.file === file && (target === undefined || (m.doc['metadata'] as { name: string }).name.includes(target)),
  )!.doc as never;
const describePods = (pods: PodRun[]): string =>
  pods.map((p) => `pod ${p.index ?? '-'}: exit ${p.exitCode}\n${p.stderr.slice(-2000)}`).join('\n');

describe('the CronJobs, played as written', () => {
  let tmp: string;
  let app: string;
  beforeAll(async () => {
    tmp = mkdtempSync(path.join(os.tmpdir(), 'soak-k8s-run-'));
    const stage = await execa(path.join(repoRoot, 'deploy', 'container', 'build.sh'), [], {
      env: { STAGE_ONLY: '1', WORK: path.join(tmp, 'image') },
      timeout: 300_000,
    });
    app = stage.stdout.trim().split('\n').at(-1)!;
  }, 300_000);
  afterAll(() => rmSync(tmp, { recursive: true, force: true }), 300_000);

  const play = (doc: Parameters<typeof playCronJob>[0], claims: string, env: Record<string, string> = SHORT) =>
    playCronJob(doc, { image, app, claims: path.join(tmp, claims), night: NIGHT, env, timeoutMs: 600_000 });

  it('every shard pod runs its shard of the night, then the finish pod writes the night report', async () => {
    const shards = await play(cronJob('cronjob-shards.yaml'), 'pvc');
    expect(
      shards.map((p) => p.exitCode),
      describePods(shards),
    ).toEqual([0, 0, 0, 0]);
    const finish = await play(cronJob('cronjob-finish.yaml'), 'pvc');
    // the night's verdict (8 cycles are too few for most gates: 2), and every shard found under the same night key
    expect([0, 1, 2], describePods(finish)).toContain(finish[0]!.exitCode);
    expect(finish[0]!.stdout).toMatch(/merged 4 runs \(8 cycles\)/);
    expect(finish[0]!.stderr).not.toMatch(/FAILED shard|left out/);
    const data = path.join(tmp, 'pvc', 'keepstate-soak-data');
    const file = path.join(data, 'reports', `${NIGHT}-default`, 'summary.json');
    const summary = JSON.parse(readFileSync(file, 'utf8')) as { sources: unknown[] };
    expect(validatorFor('summary')(summary)).toEqual([]);
    expect(summary.sources).toHaveLength(4);
  });

  it('negative control: a command that cannot work, or data outside the volume, fails the play', async () => {
    const typo = structuredClone(cronJob('cronjob-finish.yaml'));
    typo.spec.jobTemplate.spec.template.spec.containers[0]!.args = ['finsh'];
    const [bad] = await play(typo, 'typo');
    expect(bad!.exitCode).toBe(3);
    expect(bad!.stderr).toMatch(/usage: nightly\.sh/);
    const lost = structuredClone(cronJob('cronjob-finish.yaml'));
    lost.spec.jobTemplate.spec.template.spec.containers[0]!.env!.find((e) => e.name === 'NIGHTLY_DATA')!.value =
      '/var/nightly';
    await expect(play(lost, 'lost')).rejects.toThrow(/\/var\/nightly is under no volume mount/);
  });

  it('the microvm pair runs the same commands as the pair played above, its data on the volume', () => {
    const container = (doc: Parameters<typeof playCronJob>[0]) =>
      doc.spec.jobTemplate.spec.template.spec.containers[0]!;
    for (const [plain, microvm] of [
      ['cronjob-shards.yaml', 'shards-microvm'],
      ['cronjob-finish.yaml', 'finish-microvm'],
    ] as const) {
      const a = container(cronJob(plain));
      const b = container(cronJob('cronjob-microvm.yaml', microvm));
      expect([b.command, b.args, b.volumeMounts]).toEqual([a.command, a.args, a.volumeMounts]);
      const names = (c: typeof a): string[] => (c.env ?? []).map((e) => e.name).filter((n) => n !== 'NIGHTLY_RUN_ARGS');
      expect(names(b).sort()).toEqual(names(a).sort());
      expect(b.env!.find((e) => e.name === 'NIGHTLY_DATA')!.value).toMatch(/^\/data\//);
    }
  });

  it.skipIf(process.env['SOAK_E2E_K8S_MICROVM'] !== '1')(
    'the microvm pair, played (builds the guest image: minutes)',
    { timeout: 3_600_000 },
    async () => {
      // the Containerfile's RUN soak image build: the image ships the guest image prebuilt
      const built = await execa('node', [path.join(app, 'dist', 'harness', 'cli.js'), 'image', 'build'], {
        cwd: app,
        reject: false,
        timeout: 1_800_000,
      });
      expect(built.exitCode, built.stderr).toBe(0);
      const env = { CYCLES: '4', NIGHTLY_RUN_ARGS: '--target microvm --boot-samples 0' };
      const shards = await play(cronJob('cronjob-microvm.yaml', 'shards-microvm'), 'pvc-microvm', env);
      expect(
        shards.map((p) => p.exitCode),
        describePods(shards),
      ).toEqual([0, 0, 0, 0]);
      const finish = await play(cronJob('cronjob-microvm.yaml', 'finish-microvm'), 'pvc-microvm', env);
      expect([0, 1, 2], describePods(finish)).toContain(finish[0]!.exitCode);
      expect(finish[0]!.stdout).toMatch(/merged 4 runs \(4 cycles\)/);
    },
  );
});
