/**
 * The doctor's flags are declared once, in src/cli/flags.ts: the parser, `--help` and the README's flag
 * table all come from that declaration. These tests hold the three to it. The help is pinned in
 * test/golden/doctor-help.txt; run with UPDATE_GOLDEN=1 to rewrite it after a deliberate change, then
 * review the diff. The README's table is rewritten by `npm run docs`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { expectGolden } from '../../support/golden.ts';
import { PROJECT_ROOT } from '../../../dev/paths.ts';
import { DOCTOR_FLAGS, doctorParseOptions, literalDefault, statedDefault, type FlagDeclaration } from '../../../src/cli/flags.ts';
import { FLAGS_BEGIN, FLAGS_END, flagsMarkdown, withFlagsTable } from '../../../src/cli/flags-markdown.ts';
import { flagLines } from '../../../src/cli/help.ts';
import { UsageError } from '../../../src/cli/options.ts';
import { parseCommandLine } from '../../../src/cli/parse.ts';

const GOLDEN = path.join(PROJECT_ROOT, 'test/golden/doctor-help.txt');
const README = path.join(PROJECT_ROOT, 'README.md');

const FLAGS: readonly FlagDeclaration[] = DOCTOR_FLAGS;

function helpText(): string {
  const command = parseCommandLine(['doctor', '--help']);
  if (command.kind !== 'help') throw new Error(`expected help, got ${command.kind}`);
  return command.text;
}

/** The message of what parsing `doctor <args>` throws, or undefined when it does not throw. */
function refusal(args: readonly string[]): string | undefined {
  try {
    parseCommandLine(['doctor', ...args]);
    return undefined;
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    return err.message;
  }
}

describe('the flag declaration', () => {
  it('names each flag and each short name once', () => {
    const longs = FLAGS.map((f) => f.long);
    const shorts = FLAGS.flatMap((f) => (f.short === undefined ? [] : [f.short]));
    expect(new Set(longs).size).toBe(longs.length);
    expect(new Set(shorts).size).toBe(shorts.length);
    for (const short of shorts) expect(short).toMatch(/^[a-zA-Z]$/);
  });

  it('keeps every text on one line', () => {
    for (const flag of FLAGS) {
      for (const text of [flag.help, flag.readme, flag.default ?? '']) expect(text, flag.long).not.toMatch(/[\n\r]/);
    }
  });

  it.each(FLAGS.filter((f) => (f.kind === 'string' || f.kind === 'duration') && f.initial !== undefined && f.initial !== ''))(
    '--$long shows the value the parser starts from as its default',
    (flag) => {
      const stated = statedDefault(flag);
      expect(stated).toBeDefined();
      expect(literalDefault(stated ?? '')?.value).toBe(flag.kind === 'string' || flag.kind === 'duration' ? flag.initial : undefined);
    },
  );
});

describe('the parser takes its options from the declaration', () => {
  it('builds exactly the parseArgs options the doctor has always had', () => {
    expect(doctorParseOptions()).toStrictEqual({
      kubeconfig: { type: 'string', default: '' },
      context: { type: 'string', default: '' },
      namespace: { type: 'string', short: 'n', default: '' },
      'server-endpoint': { type: 'string', default: '' },
      'server-tls': { type: 'string', default: 'auto' },
      'server-ca-file': { type: 'string' },
      'server-name': { type: 'string' },
      'server-insecure-skip-verify': { type: 'boolean', default: false },
      'server-cert-file': { type: 'string' },
      'server-key-file': { type: 'string' },
      'snapshot-token-file': { type: 'string' },
      output: { type: 'string', short: 'o', default: 'human' },
      'no-color': { type: 'boolean', default: false },
      'config-only': { type: 'boolean', default: false },
      filename: { type: 'string', short: 'f', multiple: true, default: [] },
      now: { type: 'string' },
      covers: { type: 'string', multiple: true, default: [] },
      'fail-on': { type: 'string', default: 'warn' },
      'output-threshold': { type: 'string', default: 'ok' },
      'show-ok': { type: 'boolean', default: false },
      suppress: { type: 'string', multiple: true, default: [] },
      'suppress-file': { type: 'string' },
      'docs-base': { type: 'string' },
      wait: { type: 'string', default: '0' },
      quiet: { type: 'boolean', default: false },
      timeout: { type: 'string', default: '30s' },
      'pod-labels-file': { type: 'string' },
      'termination-message-path': { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    });
    expect(Object.keys(doctorParseOptions())).toEqual(FLAGS.map((f) => f.long));
  });

  it('hands each parse a list of its own', () => {
    expect(doctorParseOptions().suppress.default).not.toBe(doctorParseOptions().suppress.default);
  });

  it('keeps the parsed values typed as precisely as a literal option spec would', () => {
    const { values } = parseArgs({ args: [], strict: true, allowPositionals: true, options: doctorParseOptions() });
    expectTypeOf(values.kubeconfig).toEqualTypeOf<string>();
    expectTypeOf(values['server-tls']).toEqualTypeOf<string>();
    expectTypeOf(values['fail-on']).toEqualTypeOf<string>();
    expectTypeOf(values['server-ca-file']).toEqualTypeOf<string | undefined>();
    expectTypeOf(values['pod-labels-file']).toEqualTypeOf<string | undefined>();
    expectTypeOf(values['server-insecure-skip-verify']).toEqualTypeOf<boolean>();
    expectTypeOf(values.suppress).toEqualTypeOf<string[]>();
    expectTypeOf(values.help).toEqualTypeOf<boolean>();
    expect(values).toMatchObject({ 'server-tls': 'auto', suppress: [], help: false });
  });

  it('passes the declaration-built options to parseArgs and declares none of its own', () => {
    const source = fs.readFileSync(path.join(PROJECT_ROOT, 'src/cli/parse.ts'), 'utf8');
    const doctor = source.slice(source.indexOf('function parseDoctor('), source.indexOf('function parseCodes('));
    expect(doctor).toContain('options: doctorParseOptions(),');
    expect(doctor).not.toMatch(/type: '(?:string|boolean)'/);
  });

  it.each(FLAGS)('accepts --$long', (flag) => {
    const names = [`--${flag.long}`, ...(flag.short === undefined ? [] : [`-${flag.short}`])];
    for (const name of names) {
      const args = flag.kind === 'boolean' ? [name] : [name, 'x'];
      expect(refusal(args) ?? '', name).not.toMatch(/Unknown option/);
    }
  });

  it('refuses a flag nobody declared, in the words the test above looks for', () => {
    expect(refusal(['--pod-label-file', 'x'])).toMatch(/Unknown option '--pod-label-file'/);
    expect(refusal(['-x'])).toMatch(/Unknown option '-x'/);
  });
});

describe('doctor --help', () => {
  it('is test/golden/doctor-help.txt', () => {
    expectGolden(GOLDEN, helpText(), import.meta.filename);
  });

  it.each(FLAGS)('lists --$long', (flag) => {
    const name = flag.short === undefined ? `      --${flag.long}` : `  -${flag.short}, --${flag.long}`;
    expect(
      helpText()
        .split('\n')
        .some((line) => line === name || line.startsWith(`${name} `)),
    ).toBe(true);
  });

  it('lists --pod-labels-file with its default', () => {
    expect(helpText()).toMatch(/--pod-labels-file string {2,}[^]*\(default "\/etc\/podinfo\/labels"\)/);
  });

  it('wraps descriptions into one aligned column within 106 characters', () => {
    const lines = flagLines(FLAGS).trimEnd().split('\n');
    for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(106);
    const column = '      --server-insecure-skip-verify  '.length;
    for (const line of lines) {
      if (line.startsWith(' '.repeat(column))) expect(line[column], line).not.toBe(' ');
      else if (!line.endsWith('--termination-message-path string')) expect(line.slice(column - 2, column), line).toBe('  ');
    }
  });

  it('shows a default as pflag does: quoted strings, bare durations, prose after a colon, switches without', () => {
    const help = helpText();
    expect(help).toContain('(default "auto")');
    expect(help).toContain('(default 30s)');
    expect(help).toContain('(default 0, once)');
    expect(help).toContain('(default "ok", all)');
    expect(help).toContain('(default: all namespaces)');
    expect(help).not.toMatch(/--no-color .*default/);
  });
});

describe('the README flag table', () => {
  const readme = fs.readFileSync(README, 'utf8');

  it('is the one rendered from src/cli/flags.ts (run `npm run docs` after changing a flag)', () => {
    expect(withFlagsTable(readme, flagsMarkdown(FLAGS)), 'README.md is stale: run `npm run docs`').toBe(readme);
  });

  it.each(FLAGS)('has a row for --$long', (flag) => {
    const region = readme.slice(readme.indexOf(FLAGS_BEGIN), readme.indexOf(FLAGS_END));
    expect(region).toMatch(new RegExp(`^\\| (?:\`-${flag.short ?? '-'}\`, )?\`--${flag.long}\` \\|`, 'm'));
  });

  it('says "off" for a switch and "none" for a flag that is simply absent', () => {
    const table = flagsMarkdown(FLAGS);
    expect(table).toContain('| `--quiet` | off |');
    expect(table).toContain('| `--suppress-file` | none |');
    expect(table).toContain('| `--pod-labels-file` | `/etc/podinfo/labels` |');
  });

  it('escapes what would break a table row', () => {
    const flag: FlagDeclaration = { long: 'x', kind: 'string', default: 'a|b', help: 'h', readme: 'one | two' };
    expect(flagsMarkdown([flag])).toContain('| `--x` | a\\|b | one \\| two |');
  });

  it('replaces only the region between the markers, and refuses a README without them', () => {
    const doc = `intro\n${FLAGS_BEGIN}\nold\n${FLAGS_END}\noutro\n`;
    expect(withFlagsTable(doc, 'new\n')).toBe(`intro\n${FLAGS_BEGIN}\nnew\n${FLAGS_END}\noutro\n`);
    expect(() => withFlagsTable('no markers\n', 'new\n')).toThrow(/flags:begin/);
    expect(() => withFlagsTable(`${FLAGS_END}\n${FLAGS_BEGIN}\n`, 'new\n')).toThrow(/in that order/);
    expect(() => withFlagsTable(doc + doc, 'new\n')).toThrow(/once each/);
  });
});
