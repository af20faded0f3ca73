// What `soak image prune` removes from vm-images/build/: entries no build of this checkout would use (images of another
// recipe, templates of an older format or of another image, kernel trees no current image was built from) and the
// temp folders of builds whose process is gone; inside the current image's folder, coding workload images of another
// recipe and their builds left behind. Current entries and a running build's temp folder are kept; an entry it cannot
// classify (host-tsc.json, the downloaded .deb, anything unknown) is kept.
import { existsSync, lstatSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { isTempName, tempMaker } from '../../core/durable.js';
import { sameProcessAlive } from '../../core/proc.js';
import { parseTemplateJson } from './template.js';

/** What this checkout would build or use now. */
export interface CurrentBuild {
  /** The image folder name's hash for the current recipe (image-<recipeHash>). */
  recipeHash: string;
  /** The current recipe's built image, if there is one: its content hash and kernel package. */
  image?: { hash: string; kernelPackage: string };
}

/** One cache entry to remove and why. */
export interface StaleEntry {
  name: string;
  bytes: number;
  why: string;
}

/** A temp folder whose name records no maker is a build's only when younger than this (older ones were left behind). */
const OLD_TEMP_MS = 60 * 60 * 1000;

/** Bytes under `p` (files and folders, symlinks not followed). */
function sizeOf(p: string): number {
  const s = lstatSync(p);
  if (!s.isDirectory()) return s.size;
  return readdirSync(p).reduce((sum, e) => sum + sizeOf(path.join(p, e)), 0);
}

/** Why the temp folder `name` is stale, or null while its build may still run (its maker: core/durable.ts). */
function staleTemp(dir: string, name: string, nowMs: number): string | null {
  const maker = tempMaker(name);
  if (maker !== null) return sameProcessAlive(maker) ? null : `a build left behind (process ${maker.pid} is gone)`;
  const age = nowMs - statSync(path.join(dir, name)).mtimeMs;
  return age > OLD_TEMP_MS ? `a build left behind (${Math.round(age / 3_600_000)} h old)` : null;
}

/** Why template folder `name` is stale, or null when it is current. */
function staleTemplate(dir: string, name: string, current: CurrentBuild): string | null {
  const json = path.join(dir, name, 'template.json');
  if (!existsSync(json)) return 'no template.json';
  let imageHash: string;
  try {
    imageHash = parseTemplateJson(json, readFileSync(json, 'utf8')).imageHash;
  } catch {
    return 'an older template format (or a damaged template.json)';
  }
  if (current.image === undefined) return null; // no current image to compare with: keep it
  return imageHash === current.image.hash ? null : 'built from another guest image';
}

/** The entries of `buildDir` (vm-images/build) that `soak image prune` removes, with their size and reason. */
export function staleEntries(buildDir: string, current: CurrentBuild, nowMs = Date.now()): StaleEntry[] {
  if (!existsSync(buildDir)) return [];
  const out: StaleEntry[] = [];
  for (const name of readdirSync(buildDir).sort()) {
    const full = path.join(buildDir, name);
    if (!lstatSync(full).isDirectory()) continue;
    let why: string | null = null;
    if (/^\.?(image|template|kroot)-/.test(name) && isTempName(name)) why = staleTemp(buildDir, name, nowMs);
    else if (/^image-[0-9a-f]+$/.test(name))
      why = name === `image-${current.recipeHash}` ? null : 'built from another recipe';
    else if (/^template-[0-9a-f]+$/.test(name)) why = staleTemplate(buildDir, name, current);
    else if (name.startsWith('kroot-') && current.image !== undefined)
      why = name === `kroot-${current.image.kernelPackage}` ? null : 'a kernel no current image uses';
    if (why !== null) out.push({ name, bytes: sizeOf(full), why });
  }
  return out;
}

/** Remove `entries` from `buildDir`. */
export function removeEntries(buildDir: string, entries: StaleEntry[]): void {
  for (const e of entries) rmSync(path.join(buildDir, e.name), { recursive: true, force: true });
}

/**
 * The coding workload images in image folder `imageDir` (vm-images/build/image-<recipe>, work-image.ts) that `soak image
 * prune` removes: `initramfs-coding-<key>.cpio` and `coding-<key>.json` of a key other than `currentKey` (another
 * recipe: the workload's files, the compiler or the base image changed), and coding builds left behind. Names are
 * relative to the build folder. With no current key (the compiler is not installed) only builds left behind go.
 */
export function staleCodingEntries(imageDir: string, currentKey: string | undefined, nowMs = Date.now()): StaleEntry[] {
  if (!existsSync(imageDir)) return [];
  const out: StaleEntry[] = [];
  const rel = (name: string): string => path.join(path.basename(imageDir), name);
  for (const name of readdirSync(imageDir).sort()) {
    const key = /^(?:initramfs-coding-([0-9a-f]+)\.cpio|coding-([0-9a-f]+)\.json)$/.exec(name);
    let why: string | null = null;
    if (key !== null && currentKey !== undefined && (key[1] ?? key[2]) !== currentKey)
      why = 'a coding workload image of another recipe';
    else if (/^\.?coding-/.test(name) && isTempName(name) && lstatSync(path.join(imageDir, name)).isDirectory())
      why = staleTemp(imageDir, name, nowMs);
    if (why !== null) out.push({ name: rel(name), bytes: sizeOf(path.join(imageDir, name)), why });
  }
  return out;
}
