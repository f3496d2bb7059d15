import { describe, expect, it } from 'vitest';
import { UsageError, type DoctorOptions } from '../../../src/cli/options.ts';
import { parseCommandLine } from '../../../src/cli/parse.ts';
import { parseServerEndpoint } from '../../../src/cli/server-endpoint.ts';
import { globPattern } from '../../../src/suppress/rule.ts';

function doctor(...args: string[]): DoctorOptions {
  const command = parseCommandLine(['doctor', ...args]);
  if (command.kind !== 'doctor') throw new Error(`expected doctor, got ${command.kind}`);
  return command.options;
}

describe('--timeout', () => {
  it.each([
    ['500ms', 500],
    ['30s', 30_000],
    ['596h31m23.647s', 2 ** 31 - 1],
  ])('%s is %d ms', (text, ms) => expect(doctor('--timeout', text).timeoutMs).toBe(ms));
  it.each([
    ['0', /longer than 0/],
    ['0s', /longer than 0/],
    ['-1s', /longer than 0/],
    ['596h31m23.648s', /the longest is 596h31m23.647s/],
    ['600h', /the longest is 596h31m23.647s/],
    ['30', /use a duration/],
  ])('%s is refused', (text, why) => expect(() => doctor(`--timeout=${text}`)).toThrow(why));
});

describe('--fail-on', () => {
  it.each([
    ['ok', 'OK'],
    ['info', 'INFO'],
    ['warn', 'WARN'],
    ['fail', 'FAIL'],
  ])('%s is %s', (text, status) => expect(doctor('--fail-on', text).failOn).toBe(status));
  it.each(['FAIL', 'Warn', 'error', '', 'warn,fail'])('%j is refused', (text) => {
    expect(() => doctor(`--fail-on=${text}`)).toThrow(`invalid --fail-on ${JSON.stringify(text)} (want one of: ok, info, warn, fail)`);
  });
});

describe('--output-threshold', () => {
  it.each([
    ['ok', 'OK'],
    ['info', 'INFO'],
    ['warn', 'WARN'],
    ['fail', 'FAIL'],
  ])('%s is %s', (text, status) => expect(doctor('--output-threshold', text).outputThreshold).toBe(status));
  it.each(['WARN', 'none', ''])('%j is refused', (text) => {
    expect(() => doctor(`--output-threshold=${text}`)).toThrow(
      `invalid --output-threshold ${JSON.stringify(text)} (want one of: ok, info, warn, fail)`,
    );
  });
});

describe('--namespace', () => {
  it.each(['', 'default', 'team-a', 'a', 'x'.repeat(63), 'ns-1'])('%j is a namespace', (ns) => expect(doctor('-n', ns).namespace).toBe(ns));
  it.each(['..', '.', 'a/b', 'A', 'ns_1', '-a', 'a-', 'x'.repeat(64), 'a.b', '%2e%2e', 'a b'])('%j is refused', (ns) => {
    expect(() => doctor(`--namespace=${ns}`)).toThrow(UsageError);
  });
});

describe('--server-endpoint', () => {
  it.each([
    ['localhost', 'localhost', '9090'],
    ['host.example:19090', 'host.example', '19090'],
    ['10.0.0.1', '10.0.0.1', '9090'],
    ['::1', '::1', '9090'],
    ['[::1]:9090', '::1', '9090'],
    ['[::1]', '::1', '9090'],
    ['inference-cache-server.inference-cache-system.svc', 'inference-cache-server.inference-cache-system.svc', '9090'],
  ])('%s → host %s, gRPC port %s', (text, host, grpcPort) => {
    expect(parseServerEndpoint(text)).toEqual({ host, grpcPort });
  });
  it.each([
    ['http://x', /scheme/],
    ['http://x:1', /scheme/],
    ['host:', /port ""/],
    [':9090', /is not a host/],
    ['bad host', /is not a host/],
    ['host:0', /port "0"/],
    ['host:http', /port "http"/],
    ['[host]:9090', /brackets/],
    ['a:b:c', /is not a host/],
  ])('%s is a usage error', (text, why) => {
    expect(() => parseServerEndpoint(text)).toThrow(UsageError);
    expect(() => parseServerEndpoint(text)).toThrow(why);
  });
});

describe('--server-tls and its companions', () => {
  it('reads every TLS flag', () => {
    expect(
      doctor(
        '--server-tls=on',
        '--server-ca-file',
        '/ca.crt',
        '--server-name',
        'inference-cache-server.ns.svc',
        '--server-cert-file',
        '/c.crt',
        '--server-key-file',
        '/c.key',
      ).serverTls,
    ).toEqual({
      mode: 'on',
      caFile: '/ca.crt',
      serverName: 'inference-cache-server.ns.svc',
      insecureSkipVerify: false,
      clientCertificate: { certFile: '/c.crt', keyFile: '/c.key' },
    });
    expect(doctor('--server-tls', 'off').serverTls).toEqual({ mode: 'off', insecureSkipVerify: false });
    expect(doctor('--server-insecure-skip-verify', '--server-name', '10.0.0.1').serverTls).toEqual({
      mode: 'auto',
      insecureSkipVerify: true,
      serverName: '10.0.0.1',
    });
  });
  it.each([
    [['--server-tls=yes'], 'invalid --server-tls "yes" (want one of: auto, on, off)'],
    [['--server-tls=off', '--server-ca-file=/ca'], '--server-ca-file configure TLS, which --server-tls off turns off'],
    [
      ['--server-tls=off', '--server-insecure-skip-verify', '--server-name=x'],
      '--server-name, --server-insecure-skip-verify configure TLS',
    ],
    [['--server-insecure-skip-verify', '--server-ca-file=/ca'], 'give one or the other'],
    [['--server-cert-file=/c'], '--server-cert-file and --server-key-file go together'],
    [['--server-key-file=/k'], '--server-cert-file and --server-key-file go together'],
    [['--server-ca-file='], 'invalid --server-ca-file "": name a file'],
    [['--server-name=a b'], 'invalid --server-name "a b": want a DNS name or an IP address'],
    [['--server-name=https://x'], 'invalid --server-name'],
  ])('%j is refused', (args, why) => {
    expect(() => doctor(...args)).toThrow(UsageError);
    expect(() => doctor(...args)).toThrow(why);
  });
});

describe('doctor flags', () => {
  it('has the upstream defaults', () => {
    expect(doctor()).toEqual({
      kubeconfig: '',
      context: '',
      namespace: '',
      output: 'human',
      noColor: false,
      configOnly: false,
      files: [],
      covers: [],
      failOn: 'WARN',
      outputThreshold: 'OK',
      showOk: false,
      suppress: [],
      waitMs: 0,
      quiet: false,
      timeoutMs: 30_000,
      controllerListener: true,
      serverTls: { mode: 'auto', insecureSkipVerify: false },
    });
  });
  it('reads every flag, long and short', () => {
    const o = doctor(
      '--kubeconfig',
      '/k',
      '--context',
      'c',
      '-n',
      'ns',
      '--server-endpoint',
      'h:1',
      '--snapshot-token-file',
      '/t',
      '-o',
      'json',
      '--no-color',
      '--config-only',
      '--fail-on',
      'fail',
      '--output-threshold',
      'warn',
      '--show-ok',
      '--suppress',
      'CB004',
      '--suppress=CT001=cachetenant/*',
      '--suppress-file',
      '/rules.yaml',
      '--docs-base',
      'https://docs.example.com/codes.html',
      '--quiet',
      '--wait',
      '90s',
      '--timeout',
      '2m',
    );
    expect(o).toEqual({
      kubeconfig: '/k',
      context: 'c',
      namespace: 'ns',
      serverEndpoint: { host: 'h', grpcPort: '1' },
      snapshotTokenFile: '/t',
      output: 'json',
      noColor: true,
      configOnly: true,
      files: [],
      covers: [],
      failOn: 'FAIL',
      outputThreshold: 'WARN',
      showOk: true,
      docsBase: 'https://docs.example.com/codes.html',
      suppress: [
        { code: 'CB004', scope: { kind: 'any' }, ref: { source: '--suppress', match: 'CB004' }, location: '--suppress CB004' },
        {
          code: 'CT001',
          scope: { kind: 'glob', pattern: globPattern('cachetenant/*') },
          ref: { source: '--suppress', match: 'CT001=cachetenant/*' },
          location: '--suppress CT001=cachetenant/*',
        },
      ],
      suppressFile: '/rules.yaml',
      waitMs: 90_000,
      quiet: true,
      timeoutMs: 120_000,
      controllerListener: true,
      serverTls: { mode: 'auto', insecureSkipVerify: false },
    });
    expect(doctor('--namespace=x', '--output=table').namespace).toBe('x');
    expect(doctor('-ojson').output).toBe('json');
  });
  it('keeps an explicitly empty token file (no token) apart from the default rule', () => {
    expect(doctor('--snapshot-token-file', '').snapshotTokenFile).toBe('');
    expect(doctor().snapshotTokenFile).toBeUndefined();
  });
  it('returns frozen options', () => {
    expect(Object.isFrozen(doctor())).toBe(true);
  });
  it('takes --wait 0 (and 0s) as no wait', () => {
    expect(doctor('--wait', '0').waitMs).toBe(0);
    expect(doctor('--wait', '0s').waitMs).toBe(0);
  });
  it.each([
    [['--wait=-1s'], /invalid --wait "-1s": it must be longer than 0/],
    [['--wait', '5'], /invalid --wait "5": use a duration/],
    [['--suppress', 'cb004'], /invalid --suppress "cb004": want CODE or CODE=RESOURCE-GLOB/],
    [['--suppress', 'CB004='], /the resource glob after '=' is empty/],
    [['--suppress-file', ''], /invalid --suppress-file "": name a file/],
    [['--docs-base', 'docs/codes.md'], /invalid --docs-base "docs\/codes.md": want an absolute URL/],
    [['--docs-base', 'javascript:alert(1)'], /want an http or https URL/],
    [['--output', 'yaml'], /doctor does not write yaml output \(want one of: human, json, table, junit, sarif, markdown, html\)/],
    [['--timeout', '10'], /invalid --timeout "10"/],
    [['--bogus'], /bogus/],
    [['stray'], /"stray"/],
    [['--no-color=false'], /no-color/],
  ])('%j is a usage error', (args, why) => {
    expect(() => doctor(...args)).toThrow(UsageError);
    expect(() => doctor(...args)).toThrow(why);
  });
  it('validates --output before anything else can go wrong', () => {
    expect(() => doctor('--output', 'x', '--timeout', 'y')).toThrow(/output format/);
  });
});

describe('commands', () => {
  it.each([[['--version']], [['version']]])('%j asks for the version', (argv) => {
    expect(parseCommandLine(argv)).toEqual({ kind: 'version' });
  });
  it.each([[[]], [['--help']], [['doctor', '-h']]])('%j asks for help', (argv) => {
    expect(parseCommandLine(argv).kind).toBe('help');
  });
  it('codes takes -o, but not junit, which has no code table', () => {
    expect(parseCommandLine(['codes', '-o', 'json'])).toEqual({ kind: 'codes', output: 'json' });
    expect(() => parseCommandLine(['codes', '-o', 'junit'])).toThrow('codes does not write junit output (want one of: human, json, table)');
  });
  it('doctor takes -o junit', () => {
    expect(doctor('-o', 'junit').output).toBe('junit');
  });
});

describe('-f and --now', () => {
  it('collects -f in order; --now is an RFC 3339 time', () => {
    const options = doctor('-f', 'a.yaml', '--filename=dir', '-f', '-', '--now', '2026-12-05T10:00:00+01:00');
    expect(options.files).toEqual(['a.yaml', 'dir', '-']);
    expect(options.now?.toISOString()).toBe('2026-12-05T09:00:00.000Z');
    expect(doctor().files).toEqual([]);
  });
  it.each([
    [['--now', '2026-12-05T10:00:00Z'], /--now is only for -f/],
    [['-f', 'x', '--now', '2026-12-05'], /invalid --now "2026-12-05": want an RFC 3339 time/],
    [['-f', 'x', '--now', '2026-13-45T10:00:00Z'], /invalid --now/],
    [['-f', 'x', '--now', '2026-02-30T00:00:00Z'], /invalid --now "2026-02-30T00:00:00Z": .* on a day that exists/],
    [['--covers', 'all'], /--covers is only for -f/],
    [['-f', 'x', '--covers', 'Pod,,Event'], /invalid --covers: an empty Kind name/],
    [['-f', ''], /invalid -f "": name a file/],
    [['-f', 'x', '--kubeconfig', 'k'], /--kubeconfig cannot be used with -f/],
    [['-f', 'x', '--context', ''], /--context cannot be used with -f/],
    [['-f', 'x', '--wait', '1m'], /--wait cannot be used with -f/],
    [['-f', 'x', '--server-endpoint', 'localhost'], /--server-endpoint cannot be used with -f/],
    [['-f', 'x', '--snapshot-token-file', 't'], /--snapshot-token-file cannot be used with -f/],
  ])('%j is refused', (args, why) => expect(() => doctor(...args)).toThrow(why));
  it('--covers: comma-separated and repeated, each name once, as written', () => {
    expect(doctor('-f', 'x', '--covers', 'Pod, events', '--covers', 'pods,Pod').covers).toEqual(['Pod', 'events', 'pods']);
    expect(doctor('-f', 'x').covers).toEqual([]);
  });
  it('takes the flags that judge and render beside -f', () => {
    const options = doctor('-f', 'x', '-n', 'team-a', '--fail-on', 'info', '--config-only', '--suppress', 'CB004', '-o', 'table');
    expect(options).toMatchObject({ files: ['x'], namespace: 'team-a', failOn: 'INFO', configOnly: true, output: 'table' });
  });
});

describe('dump', () => {
  const dump = (...args: string[]) => {
    const command = parseCommandLine(['dump', ...args]);
    if (command.kind !== 'dump') throw new Error(`expected dump, got ${command.kind}`);
    return command.options;
  };
  it('defaults to YAML of every namespace within 30s', () => {
    expect(dump()).toEqual({ kubeconfig: '', context: '', namespace: '', output: 'yaml', timeoutMs: 30_000 });
    expect(dump('-n', 'team-a', '-o', 'json', '--context', 'c', '--timeout', '2m')).toMatchObject({
      namespace: 'team-a',
      output: 'json',
      context: 'c',
      timeoutMs: 120_000,
    });
  });
  it.each([
    [['-o', 'table'], /want one of: yaml, json/],
    [['-n', '../x'], /invalid --namespace/],
    [['extra'], /dump takes no arguments/],
    [['--bogus'], UsageError],
  ])('%j is refused', (args, why) => expect(() => dump(...args)).toThrow(why));
  it('has its own help', () =>
    expect(parseCommandLine(['dump', '--help'])).toMatchObject({ kind: 'help', text: expect.stringMatching(/^inferencecache dump:/) }));
});
