// Every manifest under deploy/k8s/ validates against the Kubernetes 1.27 schemas (kubernetes-models 4.5.1) and keeps
// the nightly pipeline's rules (Indexed shards, a failure policy, CPU limits = requests, a grace period for SIGTERM).
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { CronJob } from 'kubernetes-models/batch/v1';
import { PersistentVolumeClaim } from 'kubernetes-models/v1';
import { parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/paths.js';

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
