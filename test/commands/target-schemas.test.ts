// `soak target schemas --out DIR` never writes through a symlink planted in DIR: not at a schema's own name (the name
// the old code wrote to directly), not at any temp name; the symlinks' targets stay untouched and each schema lands as
// a regular file. The negative control plants nothing and shows the same files are written.
import {
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { protocolJsonSchemas } from '../../harness/targets/exec/messages.js';
import { describeResult, soakIn } from '../helpers/cli.js';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'soak-target-schemas-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const soak = soakIn(() => tmp, 60_000);
const names = Object.keys(protocolJsonSchemas());

describe('soak target schemas --out', () => {
  it('replaces a symlink planted at every schema name instead of writing through it', async () => {
    const out = path.join(tmp, 'planted');
    mkdirSync(out);
    const victims = names.map((n) => {
      const victim = path.join(tmp, `victim-${n}`);
      writeFileSync(victim, 'precious\n');
      symlinkSync(victim, path.join(out, n));
      return victim;
    });
    expect(names.length).toBeGreaterThan(5);
    const r = await soak('target', 'schemas', '--out', out);
    expect(r.exitCode, describeResult(r)).toBe(0);
    for (const v of victims) expect(readFileSync(v, 'utf8'), v).toBe('precious\n');
    for (const n of names) {
      expect(lstatSync(path.join(out, n)).isFile(), n).toBe(true);
      expect(JSON.parse(readFileSync(path.join(out, n), 'utf8')), n).toEqual(
        JSON.parse(JSON.stringify(protocolJsonSchemas()[n])),
      );
    }
    expect(readdirSync(out).filter((f) => f.includes('.tmp-'))).toEqual([]);
  });

  it('negative control: in an empty folder it writes the same files', async () => {
    const out = path.join(tmp, 'empty');
    const r = await soak('target', 'schemas', '--out', out);
    expect(r.exitCode, describeResult(r)).toBe(0);
    expect(readdirSync(out).sort()).toEqual([...names].sort());
  });
});
