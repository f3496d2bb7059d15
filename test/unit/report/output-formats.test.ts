// The output formats, declared once (src/report/output-formats.ts): which commands write which, each
// format's writer, the refusals that name a format a command does not write, and what derives from the
// declaration (the `-o` help of every command, the README's table of formats).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../../dev/paths.ts';
import { DOCTOR_FLAGS } from '../../../src/cli/flags.ts';
import { parseCommandLine } from '../../../src/cli/parse.ts';
import {
  FORMAT_NAMES,
  FORMATS_MARKERS,
  OUTPUT_FORMATS,
  defaultFormatOf,
  formatFor,
  formatsMarkdown,
  formatsOf,
  writerOf,
  type Command,
} from '../../../src/report/output-formats.ts';
import { withRegion } from '../../../src/text/generated-region.ts';

const COMMANDS: readonly Command[] = ['doctor', 'codes', 'dump'];

describe('the output formats', () => {
  it('each command writes its formats, its default first', () => {
    expect(formatsOf('doctor')).toEqual(['human', 'json', 'table', 'junit', 'sarif', 'markdown', 'html']);
    expect(formatsOf('codes')).toEqual(['human', 'json', 'table']);
    expect(formatsOf('dump')).toEqual(['yaml', 'json']);
    expect(COMMANDS.map(defaultFormatOf)).toEqual(['human', 'human', 'yaml']);
  });

  it('every format is written by some command, and says in one line what it is', () => {
    for (const name of FORMAT_NAMES) {
      expect(
        COMMANDS.some((command) => command in OUTPUT_FORMATS[name].writers),
        name,
      ).toBe(true);
      expect(OUTPUT_FORMATS[name].what).toMatch(/^[^\n]{10,200}$/);
    }
  });

  it('every writer loads, for every command that writes the format', async () => {
    for (const command of COMMANDS)
      for (const format of formatsOf(command)) expect(typeof (await writerOf(command, format))).toBe('function');
  });

  it('a command refuses by name a format it does not write, and an unknown name as such', () => {
    expect(formatFor('codes', 'junit')).toEqual({
      ok: false,
      error: 'codes does not write junit output (want one of: human, json, table)',
    });
    expect(formatFor('doctor', 'yaml')).toEqual({
      ok: false,
      error: 'doctor does not write yaml output (want one of: human, json, table, junit, sarif, markdown, html)',
    });
    expect(formatFor('dump', 'xml')).toEqual({ ok: false, error: 'invalid output format "xml" (want one of: yaml, json)' });
    expect(formatFor('dump', 'json')).toEqual({ ok: true, format: 'json' });
  });

  it('the command line refuses them the same way, for each command', () => {
    expect(() => parseCommandLine(['doctor', '-o', 'yaml'])).toThrow('doctor does not write yaml output');
    expect(() => parseCommandLine(['codes', '-o', 'junit'])).toThrow('codes does not write junit output');
    expect(() => parseCommandLine(['dump', '-o', 'human'])).toThrow('dump does not write human output');
    for (const command of COMMANDS) {
      for (const format of formatsOf(command)) expect(() => parseCommandLine([command, '-o', format])).not.toThrow();
    }
  });

  it("the doctor's -o help names exactly its formats", () => {
    const output = DOCTOR_FLAGS.find((flag) => flag.long === 'output');
    expect(output?.help).toMatch(new RegExp(`^${formatsOf('doctor').slice(0, -1).join(', ')} or ${formatsOf('doctor').at(-1) ?? ''} \\(`));
    expect(output?.readme).toContain(
      formatsOf('doctor')
        .map((f) => `\`${f}\``)
        .slice(-2)
        .join(' or '),
    );
  });

  it("the README's table of formats is the declarations' (run `npm run docs` after changing one)", () => {
    const readme = readFileSync(join(PROJECT_ROOT, 'README.md'), 'utf8');
    expect(withRegion(readme, FORMATS_MARKERS, formatsMarkdown()), 'README.md is stale: run `npm run docs`').toBe(readme);
    expect(formatsMarkdown().split('\n')).toHaveLength(FORMAT_NAMES.length + 3);
  });
});
