// Template snapshots for fresh microvm sessions: where one lives (vm-images/build/template-<key>/), its content key, and
// building it once per key (a guest booted to the agent's pre-session state, saved paused: RAM stream + disk).
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { isTempName, makeTempDir, publishDir, tempMaker } from '../../core/durable.js';
import { TargetError } from '../../core/errors.js';
import { sameProcessAlive } from '../../core/proc.js';
import { vmImagesDir } from '../guest/image.js';
import { qemuArgs, type QemuSpec } from './qemu.js';
import { sha256File } from '../guest/files.js';

/** Bump when what a template holds or how it is saved changes. */
const TEMPLATE_VERSION = '4'; // 4: template.json records each file's SHA-256 and the image it was built from

/** A built template: the paused guest's migration stream and (disk guests) its disk image, beside the guest image. */
export interface TemplateSnapshot {
  dir: string;
  key: string;
  /** QEMU migration stream of the guest paused in the agent's pre-session state. */
  ram: string;
  /** The workspace disk (qcow2) at that moment; undefined for RAM-only guests. */
  disk?: string;
  /** The template's own boot nonce (a session that skips the re-identify keeps it). */
  nonce: string;
  ramBytes: number;
  /** The guest image's content hash it was built from (`soak image prune` drops templates of other images). */
  imageHash: string;
  /** SHA-256 (hex) of each file, recorded when built and checked before use (template-check.ts). */
  sha256: { ram: string; disk?: string };
  /** Time to build it (boot to READY + save), ms. */
  buildMs: number;
  /** True when read from the cache. */
  cached?: boolean;
}

/** What a template depends on: the QEMU command line (paths left out), the image, QEMU's version, the disk recipe. */
export interface TemplateRecipe {
  spec: QemuSpec;
  imageHash: string;
  qemuVersion: string;
  diskMiB: number;
  diskFastCommit: boolean;
}

/** Content key of a template: one per image + guest options + accelerator (+ QEMU version, disk recipe). */
export function templateKey(r: TemplateRecipe): string {
  const args = qemuArgs({ ...r.spec, incoming: false, template: true, qmpSocket: 'QMP', disk: r.spec.disk && 'DISK' });
  const recipe = [TEMPLATE_VERSION, r.imageHash, r.qemuVersion, r.diskMiB, r.diskFastCommit, ...args];
  return createHash('sha256').update(recipe.join('\n')).digest('hex').slice(0, 16);
}

/** The folder of template `key`. */
export function templateDir(key: string): string {
  return path.join(vmImagesDir(), 'build', `template-${key}`);
}

/** The built template of `key`, if any. */
export function cachedTemplate(key: string): TemplateSnapshot | undefined {
  const manifest = path.join(templateDir(key), 'template.json');
  if (!existsSync(manifest)) return undefined;
  const saved = parseTemplateJson(manifest, readFileSync(manifest, 'utf8'));
  // Saved with names relative to its folder (vm-images/build may be shared between checkouts): resolved here.
  const at = (f: string): string => path.join(templateDir(key), f);
  return {
    ...saved,
    dir: templateDir(key),
    ram: at(saved.ram),
    ...(saved.disk ? { disk: at(saved.disk) } : {}),
    cached: true,
  };
}

/** A hex SHA-256. */
const isDigest = (v: unknown): v is string => typeof v === 'string' && /^[0-9a-f]{64}$/.test(v);

/** template.json's fields, checked; a damaged or hand-edited file is named in a TargetError (the run stops). */
export function parseTemplateJson(file: string, text: string): TemplateSnapshot {
  const bad = (why: string): TargetError =>
    new TargetError(`the template snapshot's ${file} is damaged (${why}): remove its folder and run again`);
  let v: Partial<TemplateSnapshot> | null;
  try {
    v = JSON.parse(text) as Partial<TemplateSnapshot> | null;
  } catch {
    throw bad('not JSON');
  }
  const plainName = (f: unknown): boolean => typeof f === 'string' && f !== '' && path.basename(f) === f;
  if (v === null || typeof v !== 'object') throw bad('not an object');
  if (!plainName(v.ram) || (v.disk !== undefined && !plainName(v.disk))) throw bad('ram/disk must be file names');
  if (typeof v.nonce !== 'string' || typeof v.ramBytes !== 'number' || typeof v.imageHash !== 'string')
    throw bad('nonce/ramBytes/imageHash missing');
  if (!isDigest(v.sha256?.ram) || (v.disk !== undefined && !isDigest(v.sha256.disk)))
    throw bad('no SHA-256 of its files');
  return v as TemplateSnapshot;
}

/** Remove the temp folders of builds of `out` whose process is gone (a host killed while it built leaves one). */
function sweepDeadBuilds(out: string): void {
  for (const e of readdirSync(path.dirname(out)).filter((x) => isTempName(x, path.basename(out)))) {
    const maker = tempMaker(e);
    if (maker !== null && !sameProcessAlive(maker))
      rmSync(path.join(path.dirname(out), e), { recursive: true, force: true });
  }
}

/** Saves a template into `tmpDir`: boots with `spec` (paths inside tmpDir), waits for READY, saves; returns its facts. */
export type TemplateSaver = (
  tmpDir: string,
) => Promise<{ nonce: string; ramBytes: number; ram: string; disk?: string }>;

/**
 * The template of `key`, built with `save` if it is not cached. Built in a fresh temp folder and renamed into place, so
 * concurrent hosts never see half a template: the loser of the rename uses the winner's.
 */
export async function ensureTemplate(key: string, imageHash: string, save: TemplateSaver): Promise<TemplateSnapshot> {
  const cached = cachedTemplate(key);
  if (cached !== undefined) return cached;
  const out = templateDir(key);
  mkdirSync(path.dirname(out), { recursive: true });
  sweepDeadBuilds(out);
  const tmp = makeTempDir(out);
  const started = process.hrtime.bigint();
  try {
    const saved = await save(tmp);
    const rel = (f: string): string => path.relative(tmp, f);
    const snap: TemplateSnapshot = {
      dir: '.',
      key,
      ram: rel(saved.ram),
      ...(saved.disk !== undefined ? { disk: rel(saved.disk) } : {}),
      nonce: saved.nonce,
      ramBytes: saved.ramBytes,
      imageHash,
      sha256: {
        ram: await sha256File(saved.ram),
        ...(saved.disk !== undefined ? { disk: await sha256File(saved.disk) } : {}),
      },
      buildMs: Math.round(Number(process.hrtime.bigint() - started) / 1e6),
    };
    writeFileSync(path.join(tmp, 'template.json'), `${JSON.stringify(snap, null, 2)}\n`);
    // Yielded: another host built it first; the catch below uses the winner's.
    if (publishDir(tmp, out, 'yield') === null) throw new Error(`${out} was built by another process`);
    return { ...cachedTemplate(key)!, cached: false };
  } catch (err) {
    rmSync(tmp, { recursive: true, force: true });
    const theirs = cachedTemplate(key);
    if (theirs !== undefined) return theirs;
    if (err instanceof TargetError) throw err;
    throw new TargetError(`building the template snapshot ${out} failed: ${(err as Error).message}`, { cause: err });
  }
}
