// Control and bidirectional characters never reach an output raw (issue 30): a scenario name and a gate title holding
// one of each class (C0 controls: SOH, ESC, CR, DEL; C1: NEL, CSI; every bidi control) go through a real `soak run`
// (terminal lines, JUnit, --summary-md, the dated report's summary.md, index.html, cycles.csv, charts and
// summary.json, there as JSON escapes), `soak gates --json` and `soak
// watch`'s live page; a hostile adapter's error text goes through the CLI's error line. Each shows as "[U+XXXX]".
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execaNode } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliPath, repoRoot } from '../helpers/paths.js';
import { describeResult, soakIn } from '../helpers/cli.js';

/** One character of each class no output may carry raw (newline and tab are allowed). */
const HOSTILE =
  '\u0001\u001b[31m\r\u007f\u0085\u009b\u202A\u202B\u202C\u202D\u202E\u2066\u2067\u2068\u2069\u200E\u200F\u061C';
// eslint-disable-next-line no-control-regex
const RAW = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/;
/** HOSTILE as YAML writes it (a double-quoted scalar's escapes). */
const YAML =
  '"\\x01\\e[31m\\r\\x7f\\x85\\x9b\\u202A\\u202B\\u202C\\u202D\\u202E\\u2066\\u2067\\u2068\\u2069\\u200E\\u200F\\u061C"';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'soak-hostile-text-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const soak = soakIn(() => tmp, 300_000);

/** Assert `text` (what `where` names) holds no raw hostile character; `shown`: it also holds the escaped form. */
function clean(where: string, text: string, shown = true): void {
  const raw = RAW.exec(text);
  expect(raw, `${where}: raw U+${raw?.[0].charCodeAt(0).toString(16)} at ${raw?.index}`).toBeNull();
  if (shown) expect(text, where).toMatch(/\\?\[U\+202E\\?\]/); // Markdown backslashes the brackets
}

/** Every file under `dir`, relative path -> text. */
function files(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const f of readdirSync(dir, { recursive: true }) as string[]) {
    const p = path.join(dir, f);
    if (statSync(p).isFile()) out.set(f, readFileSync(p, 'utf8'));
  }
  return out;
}

describe('hostile text in a scenario name and a gate title', () => {
  let run: Awaited<ReturnType<typeof soak>>;
  let runDir: string;
  beforeAll(async () => {
    writeFileSync(path.join(tmp, 'hostile.yaml'), `name: ${YAML}\ncycles: 2\nkill: { workDelayMs: [50, 100] }\n`);
    const gates = path.join(tmp, 'gates');
    cpSync(path.join(repoRoot, 'gates'), gates, { recursive: true });
    const g = path.join(gates, '02-checkpoint-atomicity.yaml');
    writeFileSync(g, readFileSync(g, 'utf8').replace('title: Checkpoint atomicity', `title: ${YAML}`));
    run = await soak(
      ...['run', '--scenario', 'hostile.yaml', '--out', 'runs', '--report-dir', 'reports', '--gates-dir', gates],
      ...['--junit', 'junit.xml', '--summary-md', 'step.md'],
    );
    runDir = /^run folder: (\S+) /m.exec(run.stdout)?.[1] ?? '';
  }, 300_000);

  it('the run ran and its terminal lines show each character escaped', () => {
    expect(runDir, describeResult(run)).not.toBe('');
    expect(run.exitCode, describeResult(run)).toBe(2); // two cycles: insufficient data, judged
    clean('stderr (the scenario line)', run.stderr);
    clean('stdout (gate table, verdict line)', run.stdout);
  });

  it('JUnit XML and the --summary-md Markdown', () => {
    clean('junit.xml', readFileSync(path.join(tmp, 'junit.xml'), 'utf8'));
    clean('step.md', readFileSync(path.join(tmp, 'step.md'), 'utf8'));
  });

  it("the dated report's summary.md, index.html, cycles.csv, charts and summary.json", () => {
    const report = path.join(
      tmp,
      'reports',
      readdirSync(path.join(tmp, 'reports')).find((d) => /^\d{4}-/.test(d))!,
    );
    const all = files(report);
    for (const f of ['summary.md', 'index.html']) clean(f, all.get(f) ?? '');
    clean('the reports index', readFileSync(path.join(tmp, 'reports', 'index.html'), 'utf8'));
    for (const [f, text] of all) clean(f, text, false);
    // summary.json keeps the name as it was, each character as a JSON escape (the same value, nothing raw)
    const summary = all.get('summary.json') ?? '';
    expect(summary).toContain('\\u202e');
    expect((JSON.parse(summary) as { scenario: string }).scenario).toBe(HOSTILE);
  });

  it('--json output: JSON escapes, the same value', async () => {
    const r = await soak('gates', runDir, '--gates-dir', path.join(tmp, 'gates'), '--json');
    expect(r.exitCode, describeResult(r)).toBe(2);
    clean('soak gates --json', r.stdout, false);
    const gates = (JSON.parse(r.stdout) as { gates: { id: number; title: string }[] }).gates;
    expect(gates.find((g) => g.id === 2)?.title).toBe(HOSTILE);
  });

  it("soak watch's live page: its state pushed over /events", async () => {
    const w = execaNode(cliPath, ['watch', runDir], { cwd: tmp, reject: false, env: { CI: '1' } });
    try {
      let out = '';
      const url = await new Promise<string>((resolve, reject) => {
        w.stdout.on('data', (d: Buffer) => {
          out += d.toString();
          const m = /^open: (\S+)$/m.exec(out);
          if (m) resolve(m[1]!);
        });
        void w.then((r) => reject(new Error(`soak watch ended before serving\n${describeResult(r)}`)));
      });
      const page = await fetch(url);
      clean('watch page', await page.text(), false);
      const events = await fetch(url.replace('/?', '/events?'));
      const reader = events.body!.getReader();
      let text = '';
      while (!/^data: .*\n\n/m.test(text)) text += Buffer.from((await reader.read()).value ?? []).toString();
      await reader.cancel();
      clean('watch /events', /^data: (.*)$/m.exec(text)![1]!);
    } finally {
      w.kill('SIGTERM');
      await w;
    }
  });
});

describe('hostile text in an adapter error', () => {
  it("reaches the CLI's error line escaped", async () => {
    const adapter = path.join(tmp, 'hostile-adapter.mjs');
    writeFileSync(
      adapter,
      `process.stdin.once('data', (b) => {
  const id = JSON.parse(String(b).split('\\n')[0]).id;
  process.stdout.write(JSON.stringify({ type: 'error', id, message: ${JSON.stringify(`boom ${HOSTILE}`)} }) + '\\n');
});
`,
    );
    writeFileSync(path.join(tmp, 'adapter.yaml'), `name: adapter\ntarget: exec\nadapter: ${adapter}\ncycles: 1\n`);
    const r = await soak('run', '--scenario', 'adapter.yaml', '--out', 'adapter-runs', '--no-report');
    expect(r.exitCode, describeResult(r)).not.toBe(0);
    expect(r.stderr, describeResult(r)).toMatch(/^soak: .*boom \[U\+0001\]\[U\+001B\]\[31m/m);
    clean('stderr', r.stderr);
  });
});
