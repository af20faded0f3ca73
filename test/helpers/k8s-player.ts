// Plays a CronJob's pods on this machine, to prove its container command can work as written: the image's ENTRYPOINT,
// CMD, WORKDIR, ENV and COPY destinations read from the Containerfile; the container's command/args (with $(VAR)
// references expanded, JOB_COMPLETION_INDEX set for each index of an Indexed Job) and env (fieldRef to the Job's
// name as the CronJob controller makes it: <cronjob>-<scheduled unix minutes>); every path under the image's COPY
// destination or a volume mount mapped to a local folder. An absolute path in env or args that is under neither
// fails the play: in a pod it would be the container's own disk, gone with the pod.
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { execa } from 'execa';

/** What the Containerfile gives a container. */
export interface Image {
  entrypoint: string[];
  cmd: string[];
  workdir: string;
  env: Record<string, string>;
  /** COPY destinations (absolute folders in the image). */
  copied: string[];
}

/** The image facts of a Containerfile's text (exec-form ENTRYPOINT and CMD, `ENV k=v ...` lines). */
export function readContainerfile(text: string): Image {
  const json = (key: string): string[] =>
    JSON.parse(new RegExp(`^${key} (\\[.*\\])$`, 'm').exec(text)?.[1] ?? '[]') as string[];
  const env: Record<string, string> = {};
  for (const [, line] of text.matchAll(/^ENV (.+)$/gm))
    for (const [, k, v] of line!.matchAll(/([A-Za-z_]\w*)=(\S+)/g)) env[k!] = v!;
  return {
    entrypoint: json('ENTRYPOINT'),
    cmd: json('CMD'),
    workdir: /^WORKDIR (\S+)$/m.exec(text)?.[1] ?? '/',
    env,
    copied: [...text.matchAll(/^COPY \S+ (\S+)$/gm)].map((m) => m[1]!.replace(/\/$/, '')),
  };
}

interface Container {
  command?: string[];
  args?: string[];
  env?: { name: string; value?: string; valueFrom?: { fieldRef?: { fieldPath: string } } }[];
  volumeMounts?: { name: string; mountPath: string }[];
}
interface CronJobDoc {
  metadata: { name: string };
  spec: {
    schedule: string;
    timeZone?: string;
    jobTemplate: {
      spec: {
        completionMode?: string;
        completions?: number;
        template: {
          spec: {
            containers: Container[];
            volumes?: { name: string; persistentVolumeClaim?: { claimName: string } }[];
          };
        };
      };
    };
  };
}

export interface PlayOptions {
  image: Image;
  /** Local folder holding each COPY destination's content (the staged app). */
  app: string;
  /** Local folder standing in for the PersistentVolumeClaims: one sub-folder per claim name. */
  claims: string;
  /** The night (yyyy-mm-dd, UTC) whose scheduled run is played. */
  night: string;
  /** Env over the manifest's (a shorter night: CYCLES...), named in the test. */
  env?: Record<string, string>;
  timeoutMs: number;
}

export interface PodRun {
  index: number | null;
  exitCode: number | undefined;
  stdout: string;
  stderr: string;
  /** The Job's name, as the CronJob controller would make it. */
  jobName: string;
}

/** The Job name the CronJob controller gives the run scheduled on `night` (schedule "M H * * *" in UTC). */
export function jobName(doc: CronJobDoc, night: string): string {
  const m = /^(\d+) (\d+) \* \* \*$/.exec(doc.spec.schedule);
  if (!m || (doc.spec.timeZone ?? 'Etc/UTC') !== 'Etc/UTC')
    throw new Error(`k8s-player: schedule '${doc.spec.schedule}' (${doc.spec.timeZone ?? ''}) is not played`);
  const at = Date.parse(`${night}T${m[2]!.padStart(2, '0')}:${m[1]!.padStart(2, '0')}:00Z`);
  return `${doc.metadata.name}-${at / 60_000}`;
}

/** Every pod of the CronJob's Job for `night` (each index of an Indexed Job, at once), to its exit. */
export async function playCronJob(doc: CronJobDoc, o: PlayOptions): Promise<PodRun[]> {
  const job = doc.spec.jobTemplate.spec;
  const pod = job.template.spec;
  const c = pod.containers[0]!;
  const name = jobName(doc, o.night);
  const mounts: [string, string][] = [
    ...o.image.copied.map((d): [string, string] => [d, o.app]),
    ...(c.volumeMounts ?? []).map((vm): [string, string] => {
      const claim = pod.volumes?.find((v) => v.name === vm.name)?.persistentVolumeClaim?.claimName;
      if (claim === undefined) throw new Error(`k8s-player: volume ${vm.name} is not a PersistentVolumeClaim`);
      mkdirSync(path.join(o.claims, claim), { recursive: true });
      return [vm.mountPath, path.join(o.claims, claim)];
    }),
  ].sort((a, b) => b[0].length - a[0].length);
  const local = (p: string): string => {
    if (!p.startsWith('/')) return p;
    const m = mounts.find(([at]) => p === at || p.startsWith(`${at}/`));
    if (m === undefined) throw new Error(`k8s-player: ${p} is under no volume mount and not in the image's app`);
    return path.join(m[1], path.relative(m[0], p));
  };
  const indices = job.completionMode === 'Indexed' ? [...Array(job.completions ?? 1).keys()] : [null];
  return Promise.all(
    indices.map(async (index) => {
      const env: Record<string, string> = { ...o.image.env };
      if (index !== null) env['JOB_COMPLETION_INDEX'] = String(index);
      for (const e of c.env ?? []) {
        const field = e.valueFrom?.fieldRef?.fieldPath;
        if (field === "metadata.labels['batch.kubernetes.io/job-name']") env[e.name] = name;
        else if (field !== undefined) throw new Error(`k8s-player: fieldRef ${field} is not played`);
        else env[e.name] = e.value ?? '';
      }
      Object.assign(env, o.env);
      const refs = (s: string): string => s.replace(/\$\(([A-Za-z_]\w*)\)/g, (m, v: string) => env[v] ?? m);
      const argv = [...(c.command ?? o.image.entrypoint), ...(c.args ?? (c.command ? [] : o.image.cmd))].map(refs);
      for (const [k, v] of Object.entries(env)) if (v.startsWith('/')) env[k] = local(v);
      const [cmd, ...args] = argv.map((a, i) => (i === 0 || a.startsWith('/') ? local(a) : a));
      const r = await execa(cmd!, args, {
        cwd: local(o.image.workdir),
        env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: path.join(o.claims, '.home'), ...env },
        extendEnv: false,
        reject: false,
        timeout: o.timeoutMs,
        stdin: 'ignore',
      });
      return { index, exitCode: r.exitCode, stdout: r.stdout, stderr: r.stderr, jobName: name };
    }),
  );
}
