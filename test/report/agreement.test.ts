// summary.md, index.html, summary.json and the terminal gate table agree on every gate figure (value, n, interval,
// verdict); the three report files agree on the first line (status, planned vs run cycles), the saturated-machine
// banner, the load rows and the source runs.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { GateResult } from '../../harness/gates/types.js';
import type { ReportVerdict } from '../../harness/gates/verdict.js';
import type { TimingJudgement } from '../../harness/gates/judge.js';
import {
  fmtGateInterval,
  fmtGateJudged,
  fmtGateObserved,
  fmtGateThreshold,
  fmtGateVerdict,
} from '../../harness/report/text/gate-format.js';
import { writeReport } from '../../harness/report/write.js';
import { formatGateTable } from '../../harness/report/text/gate-table.js';
import { makeAnalysis, makeGates } from './fixtures.js';
import { plantedGates } from './planted-gates.js';
import { plantedSaturatedMerge } from './planted-provenance.js';
import type { Summary } from '../../harness/analysis/summary.js';

/** The columns both tables share, read back as plain text. */
interface Row {
  threshold: string;
  observed: string;
  interval: string;
  judged: string;
  n: string;
  verdict: string;
}

const unHtml = (s: string): string =>
  s
    .replace(/<[^>]+>/g, '')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&');
const unMd = (s: string): string =>
  s
    .replace(/^\*\*(.*)\*\*$|^\*(.*)\*$/, '$1$2')
    .replace(/\\(.)/g, '$1')
    .replace(/&lt;/g, '<')
    .replace(/&amp;/g, '&');

function htmlRows(html: string): Map<number, Row> {
  const rows = new Map<number, Row>();
  for (const m of html.matchAll(/<tr data-gate="(\d+)"[^>]*>(.*?)<\/tr>/g)) {
    const cells = new Map(
      [...m[2]!.matchAll(/<td[^>]*data-col="(\w+)"[^>]*>(.*?)<\/td>/g)].map((c) => [c[1]!, unHtml(c[2]!)]),
    );
    rows.set(Number(m[1]), {
      threshold: cells.get('threshold')!,
      observed: cells.get('observed')!,
      interval: cells.get('interval')!,
      judged: cells.get('judged')!,
      n: cells.get('n')!,
      verdict: cells.get('verdict')!,
    });
  }
  return rows;
}

function mdRows(md: string): Map<number, Row> {
  const rows = new Map<number, Row>();
  const gates = md.slice(md.indexOf('## Gates'), md.indexOf('### How the gates are judged'));
  for (const line of gates.split('\n')) {
    const m = /^\| (\d+) \| (.*) \|$/.exec(line);
    if (!m) continue;
    const cells = m[2]!.split(/(?<!\\) \| /).map(unMd);
    const [, threshold, observed, interval, judged, n, verdict] = cells;
    rows.set(Number(m[1]), {
      threshold: threshold!,
      observed: observed!,
      interval: interval!,
      judged: judged!,
      n: n!,
      verdict: verdict!,
    });
  }
  return rows;
}

describe('one report, three files, the same figures', () => {
  let dir: string;
  let reportsDir: string;
  let json: { gates: GateResult[]; verdict: ReportVerdict };
  let html: string;
  let md: string;

  beforeAll(async () => {
    reportsDir = await mkdtemp(path.join(os.tmpdir(), 'soak-agree-'));
    const analysis = makeAnalysis({ cycles: 80, seed: 5 });
    ({ dir } = await writeReport({ analysis, gates: plantedGates(analysis), reportsDir }));
    json = JSON.parse(await readFile(path.join(dir, 'summary.json'), 'utf8')) as typeof json;
    html = await readFile(path.join(dir, 'index.html'), 'utf8');
    md = await readFile(path.join(dir, 'summary.md'), 'utf8');
  });
  afterAll(() => rm(reportsDir, { recursive: true, force: true }));

  test('every gate in summary.json has the same row in index.html and summary.md', () => {
    const fromHtml = htmlRows(html);
    const fromMd = mdRows(md);
    expect(json.gates.map((g) => g.id)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect([...fromHtml.keys()]).toEqual(json.gates.map((g) => g.id));
    expect([...fromMd.keys()]).toEqual(json.gates.map((g) => g.id));
    for (const g of json.gates) {
      const want: Row = {
        threshold: fmtGateThreshold(g),
        observed: fmtGateObserved(g),
        interval: fmtGateInterval(g),
        judged: fmtGateJudged(g),
        n: `${g.n} (${g.minN})`,
        verdict: fmtGateVerdict(g),
      };
      expect(fromHtml.get(g.id), `gate ${g.id} in index.html`).toEqual(want);
      expect(fromMd.get(g.id), `gate ${g.id} in summary.md`).toEqual(want);
    }
  });

  test('the terminal gate table (soak run, soak gates) prints the same figures as summary.md and index.html', () => {
    const lines = formatGateTable(json.gates).split('\n').slice(2);
    expect(lines).toHaveLength(json.gates.length);
    const fromMd = mdRows(md);
    json.gates.forEach((g, i) => {
      const row = fromMd.get(g.id)!;
      const cells = [row.threshold, row.observed, row.interval, row.judged, row.n, row.verdict];
      const escaped = cells.map((c) => c.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
      expect(lines[i], `gate ${g.id} on the terminal`).toMatch(
        new RegExp(`^0?${g.id}\\s+.+?\\s+${escaped.join('\\s+')}(\\s|$)`),
      );
    });
  });

  test('the figures in summary.json are consistent: the observed k/n of a rate, its interval around it, the banner', () => {
    const six = json.gates.find((g) => g.id === 6)!;
    expect(six).toMatchObject({ successes: 80, n: 80, observed: 1, judged: 'lower' });
    expect(six.value).toBe(six.interval![0]);
    expect(fmtGateObserved(six)).toBe('100% (80/80)');
    expect(fmtGateInterval(six)).toBe('[95.4%, 100%]');
    const nine = json.gates.find((g) => g.id === 9)!;
    expect(nine.verdict).toBe('inconclusive');
    expect(json.verdict.level).toBe('inconclusive'); // no gate failed, gate 9 decides the run's word
    expect(unHtml(html)).toContain(json.verdict.headline);
    expect(md).toContain(`**${json.verdict.headline}.**`);
  });
});

describe('provenance and load: the same figures in summary.md, index.html and summary.json', () => {
  let reportsDir: string;
  let json: Summary & { timing?: TimingJudgement };
  let html: string;
  let md: string;

  beforeAll(async () => {
    reportsDir = await mkdtemp(path.join(os.tmpdir(), 'soak-agree-prov-'));
    const analysis = plantedSaturatedMerge();
    const { dir } = await writeReport({ analysis, gates: makeGates(analysis), reportsDir });
    json = JSON.parse(await readFile(path.join(dir, 'summary.json'), 'utf8')) as typeof json;
    html = await readFile(path.join(dir, 'index.html'), 'utf8');
    md = await readFile(path.join(dir, 'summary.md'), 'utf8');
  });
  afterAll(() => rm(reportsDir, { recursive: true, force: true }));

  test('the first line: status and planned vs run cycles from summary.json', () => {
    expect(json).toMatchObject({ plannedCycles: 80, runStatus: { status: 'interrupted' }, cycles: { total: 37 } });
    const first = `Run interrupted after ${json.cycles.total} of ${json.plannedCycles} planned cycles, merged from 2 runs on 2 machines.`;
    expect(md.split('\n')[0]).toBe(`**${first}**`);
    const banner = /<section class="banner provenance" id="provenance"><strong>(.*?)<\/strong>/.exec(html);
    expect(unHtml(banner![1]!)).toBe(first);
    expect(html.indexOf('id="provenance"')).toBeLessThan(html.indexOf('<h1>'));
  });

  test('the saturated banner and the load rows carry summary.json machineLoad; summary.json timing agrees', () => {
    const m = json.machineLoad!;
    expect(m).toMatchObject({ saturated: true, cores: 2, samples: 3, load1: { p50: 5.5, max: 6.1 } });
    const said = `load average p50 ${m.load1.p50} (max ${m.load1.max}) on ${m.cores} cores, CPU steal p50 ${m.stealPct.p50}% (max ${m.stealPct.max}%), ${m.samples} samples`;
    const mdBanner = md.split('\n')[2]!;
    expect(unMd(mdBanner.replace(/^> /, ''))).toContain(said);
    const htmlBanner = /<section class="banner insufficient" id="saturated"><strong>(.*?)<\/strong>/.exec(html);
    expect(unHtml(htmlBanner![1]!)).toBe(unMd(mdBanner.replace(/^> /, '')).replace(/^Warning: /, ''));
    const row = `p50 ${m.load1.p50}, max ${m.load1.max} on ${m.cores} cores (${m.samples} samples)`;
    expect(md).toContain(`| Load average (1 min) | ${row} |`);
    expect(unHtml(html)).toContain(`Load average (1 min)${row}`);
    expect(unHtml(html)).toContain(`p50 ${m.stealPct.p50}%, max ${m.stealPct.max}% of all CPU time`);
    expect(json.timing).toMatchObject({
      saturated: true,
      strict: false,
      load: { load1P50: 5.5, cores: 2, samples: 3 },
    });
    expect(unMd(mdBanner.replace(/^> /, ''))).toContain(json.timing!.warning!);
  });

  test('every source shard in summary.json is listed with its machine, seed and range; never "one host"', () => {
    for (const s of json.sources!) {
      const cells = [s.runId, s.machine, String(s.seed), `${s.cycles} (ids ${s.firstCycle}-${s.lastCycle})`, s.status];
      const mdRow = md.split('\n').find((l) => l.startsWith(`| ${s.runId} |`));
      for (const c of cells) expect(unMd(mdRow!)).toContain(c);
      const htmlRow = [...html.matchAll(/<tr>(.*?)<\/tr>/g)]
        .map((r) => unHtml(r[1]!))
        .find((r) => r.startsWith(s.runId));
      for (const c of cells) expect(htmlRow).toContain(c);
    }
    for (const text of [md, unHtml(html)]) expect(text).not.toMatch(/one host/i);
  });
});
