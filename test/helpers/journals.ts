// Real journals kept as test data (test/fixtures/journals), scratch run folders holding any journal text, and the
// outcome of loading them as one comparable value (the analysis, or the error's class and message).
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll } from 'vitest';

export const fixtureJournals = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'journals');
/** The fixture run folders' names. */
export const fixtureNames = readdirSync(fixtureJournals).filter((n) => !n.includes('.'));
export const fixtureText = (name: string): string =>
  readFileSync(path.join(fixtureJournals, name, 'journal.ndjson'), 'utf8');

/** A maker of run folders in a temp folder removed after the test file; each holds the journal it is given. */
export function scratchRunFolders(prefix: string): (journal: string | Buffer) => string {
  const tmp = mkdtempSync(path.join(os.tmpdir(), prefix));
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));
  let made = 0;
  return (journal) => {
    const dir = path.join(tmp, `run-${++made}`);
    mkdirSync(dir);
    writeFileSync(path.join(dir, 'journal.ndjson'), journal);
    return dir;
  };
}

/** What loading gave: its result, or the error's class name and message (so two ways of loading compare with toEqual). */
export async function outcomeOf(load: () => Promise<unknown>): Promise<unknown> {
  try {
    return await load();
  } catch (err) {
    return { error: (err as Error).constructor.name, message: (err as Error).message };
  }
}
