// Every time value of a scenario is within a sane range and within Node's timer range (issue 30: `resumeTimeoutMs:
// 1e12` overflowed setTimeout, which then fired at once, and the run ended with exit 4). The fields are found in the
// schema itself (any field named ...Ms or ...S), so a new one without a bound fails here; each over its bound is named
// by its dot-path, all in one ConfigError; each at its bound is accepted (the negative control). Scenario files are
// read within bounds: a FIFO or a huge file is refused by loadScenario before it is read.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { TIMER_MAX_MS } from '../../harness/core/clock.js';
import { ConfigError, EXIT } from '../../harness/core/errors.js';
import { loadScenario, parseScenario, scenarioSchema } from '../../harness/scenario/scenario.js';
import { thrown } from '../helpers/thrown.js';

interface JsonSchema {
  type?: string;
  maximum?: number;
  properties?: Record<string, JsonSchema>;
  prefixItems?: JsonSchema[];
  items?: JsonSchema | false;
  required?: string[];
  enum?: string[];
}

/** A time field: its dot-path (`[]` for an array's item), seconds or ms, whether a [min, max] pair, and its maximum. */
interface TimeField {
  path: string[];
  unit: 's' | 'ms';
  pair: boolean;
  max: number | undefined;
}

function timeFields(s: JsonSchema, at: string[] = []): TimeField[] {
  const out: TimeField[] = [];
  for (const [k, p] of Object.entries(s.properties ?? {})) {
    const unit = /Ms$/.test(k) ? 'ms' : /S$/.test(k) ? 's' : null;
    if (unit !== null && (p.type === 'number' || p.type === 'integer'))
      out.push({ path: [...at, k], unit, pair: false, max: p.maximum });
    else if (unit !== null && p.prefixItems)
      out.push({
        path: [...at, k],
        unit,
        pair: true,
        max: Math.max(...p.prefixItems.map((i) => i.maximum ?? Infinity)),
      });
    else if (unit !== null) throw new Error(`time field ${[...at, k].join('.')} of an unexpected shape`);
    if (p.properties) out.push(...timeFields(p, [...at, k]));
    if (p.items && p.items.properties) out.push(...timeFields(p.items, [...at, k, '[]']));
  }
  return out;
}

const schema = z.toJSONSchema(scenarioSchema, { io: 'input' }) as JsonSchema;
const fields = timeFields(schema);
const name = (f: TimeField): string => f.path.join('.').replace('.[]', '.0');

/** A scenario (as an object) with field `f` set to `v` (an array item gets its required enum fields: a freeze). */
function withValue(f: TimeField, v: number): Record<string, unknown> {
  const value = f.pair ? [0, v] : v;
  const root: Record<string, unknown> = { name: 'bounds' };
  let node = root;
  let sub: JsonSchema = schema;
  for (const [i, key] of f.path.entries()) {
    const last = i === f.path.length - 1;
    if (key === '[]') continue;
    sub = sub.properties![key]!;
    if (last) node[key] = value;
    else if (f.path[i + 1] === '[]') {
      const item: Record<string, unknown> = { kind: 'freeze' };
      node[key] = [item];
      node = item;
      sub = sub.items as JsonSchema;
    } else node = (node[key] ??= {}) as Record<string, unknown>;
  }
  return root;
}

/** `b` merged into `a`, objects field by field (arrays and numbers replaced). */
function merge(a: Record<string, unknown>, b: Record<string, unknown>): Record<string, unknown> {
  const isObject = (v: unknown): v is Record<string, unknown> =>
    typeof v === 'object' && v !== null && !Array.isArray(v);
  for (const [k, v] of Object.entries(b)) {
    const here = a[k];
    a[k] = isObject(v) && isObject(here) ? merge(here, v) : v;
  }
  return a;
}

const parse = (o: Record<string, unknown>): unknown => parseScenario(JSON.stringify(o), 'b.yaml');

describe('scenario time values', () => {
  it('finds the time fields in the schema (so a new one is checked too)', () => {
    expect(fields.map(name).sort()).toEqual(
      [
        'budgetS',
        'stepMs',
        'checkpoint.everyMs',
        'checkpoint.timeoutMs',
        'kill.workDelayMs',
        'kill.checkpointDelayMs',
        'kill.restoreDelayMs',
        'faults.0.durationMs',
        'resumeTimeoutMs',
        'hostTimeoutMs',
        'skewMs',
        'injectRestoreDelayMs',
      ].sort(),
    );
  });

  it.each(fields.map((f) => [name(f), f] as const))('%s has a maximum within a Node timer', (_n, f) => {
    expect(f.max).toBeDefined();
    expect(f.max! * (f.unit === 's' ? 1000 : 1)).toBeLessThanOrEqual(TIMER_MAX_MS);
  });

  it('each field over its bound (1e12 ms, or 1e9 s) is named with its bound, all in one ConfigError (exit 3)', () => {
    const all = fields.reduce((o, f) => merge(o, withValue(f, f.unit === 's' ? 1e9 : 1e12)), {});
    const err = thrown(() => parse(all));
    expect(err).toBeInstanceOf(ConfigError);
    expect(err).toHaveProperty('exitCode', EXIT.badInput);
    for (const f of fields) {
      const field = f.pair ? `${name(f)}.1` : name(f);
      expect(err.message, field).toMatch(
        new RegExp(`b\\.yaml: ${field.replace(/\./g, '\\.')}: must be at most \\d+ (ms|s)`),
      );
    }
  });

  it.each(fields.map((f) => [name(f), f] as const))('negative control: %s at its bound is accepted', (_n, f) => {
    expect(() => parse(withValue(f, f.max!))).not.toThrow();
    const err = thrown(() => parse(withValue(f, f.max! + 1)));
    expect(err.message).toContain(`b.yaml: ${f.pair ? `${name(f)}.1` : name(f)}: must be at most ${f.max}`);
  });

  it('weights have a bound too (a sum of huge weights is Infinity)', () => {
    const err = thrown(() =>
      parse({ name: 'w', kill: { phases: { work: 1e300 } }, faults: [{ kind: 'sigkill', weight: 1e300 }] }),
    );
    expect(err.message).toContain('b.yaml: kill.phases.work:');
    expect(err.message).toContain('b.yaml: faults.0.weight:');
  });
});

describe('loadScenario reads within bounds', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'soak-scenario-bounds-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('refuses a FIFO (a plain read would block until a writer came) and a 50 MB file, naming each', () => {
    const fifo = path.join(dir, 'fifo.yaml');
    execFileSync('mkfifo', [fifo], { timeout: 10_000 });
    expect(thrown(() => loadScenario(fifo)).message).toBe(
      `scenario ${fifo} is a FIFO, not a regular file: pass a .yaml file`,
    );
    const huge = path.join(dir, 'huge.yaml');
    writeFileSync(huge, 'name: huge\n');
    truncateSync(huge, 50 * 1024 * 1024);
    expect(thrown(() => loadScenario(huge))).toBeInstanceOf(ConfigError);
    expect(thrown(() => loadScenario(huge)).message).toMatch(
      /^scenario .*huge\.yaml is 52428800 bytes, over the limit/,
    );
  });

  it('negative control: a regular scenario file beside them loads', () => {
    const ok = path.join(dir, 'ok.yaml');
    writeFileSync(ok, 'name: ok\nresumeTimeoutMs: 3600000\n');
    expect(loadScenario(ok).scenario.resumeTimeoutMs).toBe(3_600_000);
  });
});
