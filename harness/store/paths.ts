// Where a store keeps things: packs/ (chunk data and their indexes), checkpoints/ (one manifest per checkpoint), lock.
import { existsSync, lstatSync, readdirSync, readlinkSync } from 'node:fs';
import path from 'node:path';

/** The folders of one store. */
export interface StorePaths {
  readonly root: string;
  readonly packs: string;
  readonly checkpoints: string;
}

/** The folders of the store at `dir`. */
export function storePaths(dir: string): StorePaths {
  return { root: dir, packs: path.join(dir, 'packs'), checkpoints: path.join(dir, 'checkpoints') };
}

/** A committed manifest's file name (temp files and anything else in checkpoints/ do not match). */
export const MANIFEST_FILE = /^\d{10}\.json$/;

/** The manifest files in `checkpointsDir`, oldest first. */
export function manifestFiles(checkpointsDir: string): string[] {
  return readdirSync(checkpointsDir)
    .filter((f) => MANIFEST_FILE.test(f))
    .sort();
}

/** True when `dir` looks like a store (has a checkpoints folder). */
export function isStore(dir: string): boolean {
  return existsSync(storePaths(dir).checkpoints);
}

/**
 * Where `packs` links to when it is a link (a session's store in a multi-session run, run/sessions.ts: every session's
 * packs/ is the run's one shared folder, written by other stores' writers too), else null (also when it is missing).
 */
export function sharedPacksLink(packs: string): string | null {
  try {
    return lstatSync(packs).isSymbolicLink() ? readlinkSync(packs) : null;
  } catch {
    return null;
  }
}
