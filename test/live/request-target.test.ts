// The live server's reading of a request target: never throws, matches paths whole, and finds the token only where a
// query really is (origin-form or absolute-form).
import { describe, expect, it } from 'vitest';
import { readTarget } from '../../harness/live/request-target.js';

describe('readTarget', () => {
  it.each([
    ['/', '/', null],
    ['/?token=abc', '/', 'abc'],
    ['/events?x=1&token=a%2Db', '/events', 'a-b'],
    ['//', '//', null],
    ['//?token=t', '//', 't'],
    ['//x', '//x', null],
    ['/%', '/%', null],
    ['/%zz?token=%zz', '/%zz', '%zz'],
    ['/./events?token=t', '/./events', 't'], // no normalisation: no route is reached by a detour
    ['http://127.0.0.1:1/kill?token=t', '/kill', 't'], // absolute-form
    ['https://h/?token=t', '/', 't'],
    ['http://[', 'http://[', null],
    ['http://[/?token=t', 'http://[/?token=t', null],
    ['ftp://h/?token=t', 'ftp://h/?token=t', null],
    ['javascript:alert(1)?token=t', 'javascript:alert(1)?token=t', null],
    ['127.0.0.1:8080', '127.0.0.1:8080', null], // authority-form
    ['*', '*', null],
    ['', '', null],
    ['\u0000\uffff?token=t', '\u0000\uffff?token=t', null],
  ])('%j -> path %j, token %j', (raw, path, token) => {
    const t = readTarget(raw);
    expect(t.path).toBe(path);
    expect(t.query.get('token')).toBe(token);
  });

  it('reads a missing target as an empty path', () => {
    expect(readTarget(undefined).path).toBe('');
  });
});
