// Gate files are read within bounds (issue 30): a FIFO, a huge file and an out-of-range minN are each named in the one
// ConfigError that lists every problem of the folder (exit 3), before anything blocks or is read whole; the negative
// control is the same folder without them, which loads.
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, EXIT } from '../../harness/core/errors.js';
import { defaultGatesDir, loadGates } from '../../harness/gates/load.js';
import { thrown } from '../helpers/thrown.js';

const root = mkdtempSync(path.join(os.tmpdir(), 'soak-gate-bounds-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A gates folder holding the shipped gate 02 and `extra` files made by `make`. */
function folder(name: string, make: (dir: string) => void = () => {}): string {
  const dir = path.join(root, name);
  mkdirSync(dir);
  copyFileSync(
    path.join(defaultGatesDir(), '02-checkpoint-atomicity.yaml'),
    path.join(dir, '02-checkpoint-atomicity.yaml'),
  );
  make(dir);
  return dir;
}

describe('loadGates within bounds', () => {
  it('names a FIFO, a 50 MB file and minN past its bound, all in one ConfigError', () => {
    const dir = folder('bad', (d) => {
      execFileSync('mkfifo', [path.join(d, '03-fifo.yaml')], { timeout: 10_000 });
      writeFileSync(path.join(d, '04-huge.yaml'), 'id: 4\n');
      truncateSync(path.join(d, '04-huge.yaml'), 50 * 1024 * 1024);
      writeFileSync(
        path.join(d, '05-many.yaml'),
        'id: 5\ntitle: t\nmetric: violations\nthreshold: count == 0\nminN: 1e12\n',
      );
    });
    const err = thrown(() => loadGates(dir));
    expect(err).toBeInstanceOf(ConfigError);
    expect(err).toHaveProperty('exitCode', EXIT.badInput);
    const lines = err.message.split('\n');
    expect(lines).toContain(
      `gate file ${path.join(dir, '03-fifo.yaml')} is a FIFO, not a regular file: pass a .yaml file`,
    );
    expect(lines).toContain(
      `gate file ${path.join(dir, '04-huge.yaml')} is 52428800 bytes, over the limit of 1048576 bytes`,
    );
    expect(lines.some((l) => l.startsWith(`${path.join(dir, '05-many.yaml')}: minN: `))).toBe(true);
  });

  it('negative control: the folder without them loads', () => {
    expect(loadGates(folder('good')).map((g) => g.id)).toEqual([2]);
  });
});
