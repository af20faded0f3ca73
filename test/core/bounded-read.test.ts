// Config files are read within bounds (issue 30): a file over the size limit, a FIFO (which would block a plain read
// forever), a device such as /dev/zero (endless, its stat size 0) and a folder are each refused by stat, before
// reading, with a one-line ConfigError (exit 3) naming the file; the negative controls are files at and under the
// limit, read whole.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CONFIG_FILE_MAX_BYTES, readBoundedText } from '../../harness/core/bounded-read.js';
import { ConfigError, EXIT } from '../../harness/core/errors.js';
import { thrown } from '../helpers/thrown.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'soak-bounded-read-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The refusal of `file`: a one-line ConfigError (exit 3) naming it. */
function refusal(file: string, max?: number): string {
  const err = thrown(() => readBoundedText(file, 'scenario', max));
  expect(err).toBeInstanceOf(ConfigError);
  expect(err).toHaveProperty('exitCode', EXIT.badInput);
  expect(err.message).toContain(`scenario ${file} `);
  expect(err.message.split('\n')).toHaveLength(1);
  return err.message;
}

describe('readBoundedText', () => {
  it('refuses a 50 MB file by its size, before reading it (a sparse file: nothing to read but its stat)', () => {
    const file = path.join(dir, 'huge.yaml');
    writeFileSync(file, '');
    truncateSync(file, 50 * 1024 * 1024);
    expect(refusal(file)).toMatch(/is 52428800 bytes, over the limit of 1048576 bytes/);
  });

  it('refuses a FIFO without opening it (a read would wait for a writer forever)', () => {
    const file = path.join(dir, 'fifo.yaml');
    execFileSync('mkfifo', [file], { timeout: 10_000 });
    expect(refusal(file)).toMatch(/is a FIFO, not a regular file/);
  });

  it('refuses /dev/zero (stat size 0, endless) and a folder', () => {
    expect(refusal('/dev/zero')).toMatch(/is a device, not a regular file/);
    const folder = path.join(dir, 'folder.yaml');
    mkdirSync(folder);
    expect(refusal(folder)).toMatch(/is a folder, not a regular file/);
  });

  it('a missing file is a one-line refusal naming it', () => {
    expect(refusal(path.join(dir, 'missing.yaml'))).toMatch(/cannot be read \(ENOENT\)/);
  });

  it('negative controls: a file at the limit is read whole, one byte over is refused', () => {
    const at = path.join(dir, 'at.yaml');
    writeFileSync(at, 'x'.repeat(CONFIG_FILE_MAX_BYTES));
    expect(readBoundedText(at, 'scenario')).toHaveLength(CONFIG_FILE_MAX_BYTES);
    const over = path.join(dir, 'over.yaml');
    writeFileSync(over, 'x'.repeat(CONFIG_FILE_MAX_BYTES + 1));
    expect(refusal(over)).toMatch(/over the limit of 1048576 bytes/);
    const small = path.join(dir, 'small.yaml');
    writeFileSync(small, 'name: é\n');
    expect(readBoundedText(small, 'scenario', 9)).toBe('name: é\n');
    expect(refusal(small, 8)).toMatch(/is 9 bytes, over the limit of 8 bytes/);
  });
});
