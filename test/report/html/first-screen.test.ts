// The run page's first screen as HTML: the story comes before everything else, every string from a gate file or the
// journal is escaped (a hostile title, note, run id), and the page keeps its CSP and carries no script.
import { describe, expect, test } from 'vitest';
import { buildModel } from '../../../harness/report/model.js';
import { renderPage, REPORT_CSP } from '../../../harness/report/html/page.js';
import { storyRun } from '../story-fixtures.js';

const HOSTILE = '<img src=x onerror=alert(1)>\u202Egnp';

describe('first screen HTML', () => {
  const { analysis, gates } = storyRun('fail');
  const html = renderPage(buildModel(analysis, gates), []);

  test('banner, then the gates that did not pass, then what to do next, then the rest', () => {
    const at = (s: string): number => html.indexOf(s);
    expect(at('id="verdict"')).toBeGreaterThan(0);
    expect(at('id="verdict"')).toBeLessThan(at('id="first-screen"'));
    expect(at('id="first-screen"')).toBeLessThan(at('id="next-steps"'));
    expect(at('id="next-steps"')).toBeLessThan(at('<h2>Key figures</h2>'));
    const told = [...html.matchAll(/<article class="story-gate \w+" data-gate="(\d+)"/g)].map((m) => m[1]);
    expect(told).toEqual(['2', '4', '6', '8']);
    expect(html).toContain('<dd data-field="interval">[89.5%, 98.8%]</dd>');
    expect(html).toContain('<code>soak check runs/run-5-80</code>');
  });

  test('a hostile gate title, note and run id are escaped everywhere they appear', () => {
    const evil = gates.map((g) => ({ ...g, title: `${g.title} ${HOSTILE}`, note: HOSTILE }));
    const a = { ...analysis, summary: { ...analysis.summary, runId: HOSTILE } };
    const page = renderPage(buildModel(a, evil), []);
    expect(page).not.toContain('<img');
    expect(page).not.toContain('\u202E');
    expect(page).toContain('&lt;img src=x onerror=alert(1)&gt;[U+202E]gnp');
    expect(page).toContain('<code>soak check runs/&lt;img src=x onerror=alert(1)&gt;[U+202E]gnp</code>');
    expect(page).not.toMatch(/<script/i);
    expect(page).toContain(`content="${REPORT_CSP.replace(/'/g, '&#39;')}"`);
  });
});
