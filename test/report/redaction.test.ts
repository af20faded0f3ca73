import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { REDACTED, redactText } from '../../harness/report/redact.js';
import { writeReport } from '../../harness/report/write.js';
import { makeAnalysis, makeGates } from './fixtures.js';

const SECRET = 'sk-test-KEEPSTATE-4f1d9c2a7b6e8d3c';
const MARKER = 'redaction-marker-scenario';
const dirs: string[] = [];

afterAll(async () => {
  delete process.env['KEEPSTATE_TEST_TOKEN'];
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

async function allFiles(dir: string): Promise<Array<[string, string]>> {
  const out: Array<[string, string]> = [];
  for (const e of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (e.isFile())
      out.push([path.join(e.parentPath, e.name), await readFile(path.join(e.parentPath, e.name), 'utf8')]);
  }
  return out;
}

describe('redaction', () => {
  test('a secret planted in the environment variables reaches no report file', async () => {
    process.env['KEEPSTATE_TEST_TOKEN'] = SECRET;
    const reportsDir = await mkdtemp(path.join(os.tmpdir(), 'soak-redact-'));
    dirs.push(reportsDir);
    const analysis = makeAnalysis({ scenario: MARKER });
    await writeReport({ analysis, gates: makeGates(analysis), reportsDir });
    const files = await allFiles(reportsDir);
    expect(files.length).toBeGreaterThanOrEqual(17); // 16 report files + reports/index.html
    // Positive control: the same scan does find a string that is meant to be there.
    for (const name of ['index.html', 'summary.md', 'summary.json']) {
      expect(files.find(([f]) => f.endsWith(path.join(`2025-06-01-${MARKER}`, name)))?.[1]).toContain(MARKER);
    }
    for (const [file, text] of files) {
      expect(text.includes(SECRET), file).toBe(false);
      expect(text.includes('KEEPSTATE_TEST_TOKEN'), file).toBe(false);
    }
  });

  test('credential-looking target facts are masked in every report file', async () => {
    const reportsDir = await mkdtemp(path.join(os.tmpdir(), 'soak-redact-'));
    dirs.push(reportsDir);
    const analysis = makeAnalysis({ target: 'microvm' });
    analysis.summary.environment.target['cmdline'] = `qemu -drive file=x --api-key=${SECRET}`;
    analysis.summary.environment.target['registry'] = 'https://user:hunter2@registry.example/img';
    await writeReport({ analysis, gates: [], reportsDir });
    for (const [file, text] of await allFiles(reportsDir)) {
      expect(text.includes(SECRET), file).toBe(false);
      expect(text.includes('hunter2'), file).toBe(false);
    }
  });

  test('redactText masks common key shapes and leaves ordinary facts alone', () => {
    expect(redactText(`token=${SECRET}`)).toBe(`token=${REDACTED}`);
    expect(redactText('ghp_abcdefghijklmnopqrstuvwx12')).toBe(REDACTED);
    expect(redactText('AKIAABCDEFGHIJKLMNOP')).toBe(REDACTED);
    expect(redactText('eyJhbGciOiJI.eyJzdWIiOiIx.c2lnbmF0dXJl')).toBe(REDACTED);
    expect(redactText('https://u:p@h/x')).not.toContain('u:p');
    expect(redactText('7.2.15 (Debian 1:7.2+dfsg-7+deb12u13)')).toBe('7.2.15 (Debian 1:7.2+dfsg-7+deb12u13)');
    expect(redactText('sha256:3f9a1c0e7b2d')).toBe('sha256:3f9a1c0e7b2d');
  });
});
