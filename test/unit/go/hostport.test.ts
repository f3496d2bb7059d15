import { describe, expect, it } from 'vitest';
import { joinHostPort, splitHostPort } from '../../../src/go/hostport.ts';

describe('splitHostPort (Go net.SplitHostPort rules)', () => {
  it.each([
    ['localhost:9090', 'localhost', '9090'],
    ['host.example:19090', 'host.example', '19090'],
    ['10.0.0.1:80', '10.0.0.1', '80'],
    ['[::1]:9090', '::1', '9090'],
    ['[fe80::1%eth0]:80', 'fe80::1%eth0', '80'],
    ['host:', 'host', ''],
    [':9090', '', '9090'],
    [':', '', ''],
    ['[]:1', '', '1'],
    ['h:http', 'h', 'http'],
  ])('%j → host %j, port %j', (input, host, port) => {
    expect(splitHostPort(input)).toEqual({ ok: true, host, port });
  });

  it.each([
    ['', /no port/],
    ['localhost', /no port/],
    ['::1', /too many colons/],
    ['redis://h:6379', /too many colons/],
    ['http://x:1', /too many colons/],
    ['[::1]', /no port/],
    ['[::1]x', /no port/],
    ['[::1]:x:1', /too many colons/],
    ['[::1', /'\['/],
    ['[[::1]]:9090', /no port/], // Go: the first ']' is not followed by the last ':'
    ['a]:1', /stray '\]'/],
    ['a[:1', /stray '\['/],
  ])('%j fails (%s)', (input, why) => {
    const result = splitHostPort(input);
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.error).toMatch(why);
      expect(result.error).toContain(input);
    }
  });
});

describe('joinHostPort', () => {
  it.each([
    ['localhost', '9090', 'localhost:9090'],
    ['::1', '9090', '[::1]:9090'],
    ['[::1]', 9090, '[[::1]]:9090'],
    ['', 8081, ':8081'],
  ])('%j + %j → %j', (host, port, joined) => {
    expect(joinHostPort(host, port)).toBe(joined);
  });

  it('round-trips', () => {
    for (const [host, port] of [
      ['::1', '1'],
      ['h', '2'],
      ['fe80::1%lo', '3'],
    ] as const) {
      expect(splitHostPort(joinHostPort(host, port))).toEqual({ ok: true, host, port });
    }
  });
});
