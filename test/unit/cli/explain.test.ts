/**
 * `inferencecache explain CODE`: its command line (one code, `-o`, `--docs-base`, `--help`), its help
 * derived from its flag declarations and pinned in test/golden/explain-help.txt (UPDATE_GOLDEN=1
 * rewrites it), and what the whole app does with it: exit 0 with the explanation on stdout, or exit 3
 * with one line on stderr and nothing on stdout.
 */
import path from 'node:path';
import { collectingIO } from '../../support/app-io.ts';
import { expectGolden } from '../../support/golden.ts';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../../dev/paths.ts';
import { runApp } from '../../../src/app.ts';
import { EXPLAIN_FLAGS } from '../../../src/cli/explain-flags.ts';
import { DOCTOR_FLAGS, type FlagDeclaration } from '../../../src/cli/flags.ts';
import { UsageError } from '../../../src/cli/options.ts';
import { parseCommandLine } from '../../../src/cli/parse.ts';
import { formatsOf } from '../../../src/report/output-formats.ts';

const GOLDEN = path.join(PROJECT_ROOT, 'test/golden/explain-help.txt');

const FLAGS: readonly FlagDeclaration[] = EXPLAIN_FLAGS;

/** What parsing `explain <args>` gives. */
function parsed(...args: string[]) {
  return parseCommandLine(['explain', ...args]);
}

/** Runs the app with `argv`, collecting stdout and stderr. */
async function run(...argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const { io, stdout, stderr } = collectingIO(argv);
  const code = await runApp(io);
  return { code, stdout: stdout(), stderr: stderr() };
}

describe('the explain command line', () => {
  it.each([
    [['CB004'], { code: 'CB004', output: 'human' }],
    [['cb004', '-o', 'json'], { code: 'cb004', output: 'json' }],
    [['--output=json', 'SV001'], { code: 'SV001', output: 'json' }],
    [['TL003', '--docs-base', 'https://d.example/codes.md'], { code: 'TL003', output: 'human', docsBase: 'https://d.example/codes.md' }],
  ])('%j', (args, options) => {
    expect(parsed(...args)).toEqual({ kind: 'explain', options });
  });

  it.each([
    [[], /explain takes a finding code, such as CB004; run 'inferencecache codes' to list them/],
    [[''], /explain takes a finding code/],
    [['-o', 'json'], /explain takes a finding code/],
    [['CB004', 'CB005'], /explain takes one code, got 2: "CB004" "CB005"/],
    [['CB004', '-o', 'table'], /explain does not write table output \(want one of: human, json\)/],
    [['CB004', '-o', 'junit'], /explain does not write junit output/],
    [['CB004', '--docs-base', 'codes.md'], /invalid --docs-base "codes.md": want an absolute URL/],
    [['CB004', '--docs-base', 'ftp://d.example/codes.md'], /invalid --docs-base .*: want an http or https URL/],
    [['CB004', '--namespace', 'x'], /Unknown option '--namespace'/],
  ])('%j is a usage error', (args, why) => {
    expect(() => parsed(...args)).toThrow(UsageError);
    expect(() => parsed(...args)).toThrow(why);
  });

  it('writes the formats declared for it, human first', () => {
    expect(formatsOf('explain')).toEqual(['human', 'json']);
  });

  it('takes --docs-base as the doctor declares it, worded for one link', () => {
    const doctor = DOCTOR_FLAGS.find((f) => f.long === 'docs-base');
    const explain = EXPLAIN_FLAGS.find((f) => f.long === 'docs-base');
    expect(explain).toMatchObject({ kind: doctor?.kind, default: doctor?.default });
    expect(explain?.help).not.toBe(doctor?.help);
  });
});

describe('explain --help', () => {
  const help = (): string => {
    const command = parsed('--help');
    if (command.kind !== 'help') throw new Error(`expected help, got ${command.kind}`);
    return command.text;
  };

  it('is test/golden/explain-help.txt', () => {
    expectGolden(GOLDEN, help(), import.meta.filename);
  });

  it.each(FLAGS)('lists --$long', (flag) => {
    const name = flag.short === undefined ? `      --${flag.long}` : `  -${flag.short}, --${flag.long}`;
    expect(
      help()
        .split('\n')
        .some((line) => line.startsWith(`${name} `)),
    ).toBe(true);
  });

  it('is given with or without a code, and the root help names the command', () => {
    expect(parsed('CB004', '-h').kind).toBe('help');
    const root = parseCommandLine(['--help']);
    expect(root.kind === 'help' ? root.text : '').toMatch(/\n {2}inferencecache explain CODE {2,}\S/);
  });
});

describe('inferencecache explain, run', () => {
  it('prints the explanation and exits 0', async () => {
    const { code, stdout, stderr } = await run('explain', 'cb004');
    expect(code).toBe(0);
    expect(stderr).toBe('');
    expect(stdout).toMatch(/^CB004 {2}WARN\n/);
    expect(stdout).toMatch(/\nFix: {6}1\. /);
  });

  it.each([
    [['explain'], /^error: explain takes a finding code/],
    [['explain', 'CB099'], /^error: CB099 is not a code of this version of inferencecache/],
    [['explain', 'cb04'], /^error: unknown code "cb04"; did you mean CB004\?/],
    [['explain', 'nonsense', '-o', 'json'], /^error: unknown code "nonsense": .* run 'inferencecache codes'/],
  ])('%j exits 3 with one line on stderr and nothing on stdout', async (argv, why) => {
    const { code, stdout, stderr } = await run(...argv);
    expect(code).toBe(3);
    expect(stdout).toBe('');
    expect(stderr).toMatch(why);
    expect(stderr.trimEnd().split('\n')).toHaveLength(1);
  });
});
