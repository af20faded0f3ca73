// Parse XML with a real parser (Python's expat, through Debian's python3) for tests: the JUnit files the CLI writes.
import { execaSync } from 'execa';

/** A JUnit document as the parser read it: suites' counts and each testcase's name and <failure>/<skipped>/<error> message. */
export interface ParsedJunit {
  tests: number;
  /** The suite's time attribute (seconds, as written). */
  time: string;
  failures: number;
  errors: number;
  skipped: number;
  properties: Record<string, string>;
  /** The suite's <system-out> text (null: none). */
  systemOut: string | null;
  cases: Array<{ name: string; time: string; failure: string | null; skipped: string | null; error: string | null }>;
}

const SCRIPT = `
import json, sys, xml.etree.ElementTree as ET
root = ET.fromstring(sys.stdin.buffer.read())
suite = root.find('testsuite')
cases = [{'name': c.get('name'), 'time': c.get('time'),
          'failure': (c.find('failure').get('message') if c.find('failure') is not None else None),
          'skipped': (c.find('skipped').get('message') if c.find('skipped') is not None else None),
          'error': (c.find('error').get('message') if c.find('error') is not None else None)}
         for c in suite.findall('testcase')]
props = {p.get('name'): p.get('value') for p in suite.find('properties').findall('property')}
print(json.dumps({'tests': int(root.get('tests')), 'time': suite.get('time'), 'failures': int(root.get('failures')), 'errors': int(root.get('errors')),
                  'skipped': int(root.get('skipped')), 'properties': props, 'systemOut': suite.findtext('system-out'),
                  'cases': cases}))
`;

/** Parse `xml` (throws with the parser's message when it is not well-formed XML). */
export function parseJunit(xml: string): ParsedJunit {
  const r = execaSync('python3', ['-c', SCRIPT], { input: xml, reject: false, timeout: 60_000 });
  if (r.exitCode !== 0) throw new Error(`not well-formed: ${r.stderr.trim().split('\n').pop() ?? ''}`);
  return JSON.parse(r.stdout) as ParsedJunit;
}
