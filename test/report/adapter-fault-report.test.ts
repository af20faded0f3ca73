// A run with adapter faults, in every report file the lattice feeds: summary.json (verdict level adapter-fault, the
// adapterFaults block apart from violations), summary.md and index.html (the ADAPTER FAULT banner naming the first fault,
// escaped; a finding counting them), the job summary, and the reports index (its pill). Control: the same run without
// faults is not labelled so.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildModel } from '../../harness/report/model.js';
import { renderStepSummary } from '../../harness/report/text/step-summary.js';
import { writeReport } from '../../harness/report/write.js';
import { makeAnalysis, makeGates } from './fixtures.js';

const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

const FIRST = 'adapter fault: adapter <x>.mjs (pid 7), request restore #2: a line that is not a JSON object: "*boom*"';

async function report(
  faults: number,
): Promise<{ json: Record<string, unknown>; md: string; html: string; index: string; step: string }> {
  const base = makeAnalysis();
  const analysis = {
    ...base,
    summary: { ...base.summary, adapterFaults: { count: faults, samples: faults > 0 ? [FIRST] : [] } },
  };
  const gates = makeGates(analysis);
  const reportsDir = await mkdtemp(path.join(os.tmpdir(), 'soak-adapter-report-'));
  dirs.push(reportsDir);
  const { dir } = await writeReport({ analysis, gates, reportsDir });
  const read = (f: string): Promise<string> => readFile(path.join(dir, f), 'utf8');
  return {
    json: JSON.parse(await read('summary.json')) as Record<string, unknown>,
    md: await read('summary.md'),
    html: await read('index.html'),
    index: await readFile(path.join(reportsDir, 'index.html'), 'utf8'),
    step: renderStepSummary(buildModel(analysis, gates), dir),
  };
}

describe('a report of a run with adapter faults', () => {
  it('says ADAPTER FAULT in summary.json, summary.md, index.html, the job summary and the reports index', async () => {
    const r = await report(3);
    expect((r.json['verdict'] as { level: string }).level).toBe('adapter-fault');
    expect(r.json['adapterFaults']).toEqual({ count: 3, samples: [FIRST] });
    expect(r.json['violations']).toBe(0);
    const headline = /ADAPTER FAULT: 3 adapter faults, \d+ of \d+ gates failed/;
    expect(r.md).toMatch(headline);
    expect(r.md).toContain(
      'Adapter faults (the exec adapter broke the target protocol; counted apart from checker violations): 3',
    );
    expect(r.md).toContain('\\*boom\\*'); // Markdown-escaped
    expect(r.html).toMatch(
      /<section class="banner adapter-fault" id="verdict"><strong>ADAPTER FAULT: 3 adapter faults/,
    );
    expect(r.html).toContain('&lt;x&gt;.mjs'); // HTML-escaped
    expect(r.step).toMatch(/^## 🛑 keepstate-soak: .*ADAPTER FAULT: 3 adapter faults/);
    expect(r.index).toMatch(/class="pill adapter-fault">adapter fault</);
  });

  it('control: the same run without adapter faults carries none of it', async () => {
    const r = await report(0);
    expect((r.json['verdict'] as { level: string }).level).not.toBe('adapter-fault');
    expect(r.md).not.toContain('ADAPTER FAULT');
    expect(r.html).not.toContain('banner adapter-fault');
  });
});
