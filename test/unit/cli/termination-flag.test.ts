import { describe, expect, it } from 'vitest';
import { UsageError, type DoctorOptions } from '../../../src/cli/options.ts';
import { parseCommandLine } from '../../../src/cli/parse.ts';

function doctor(...args: string[]): DoctorOptions {
  const command = parseCommandLine(['doctor', ...args]);
  if (command.kind !== 'doctor') throw new Error(`expected doctor, got ${command.kind}`);
  return command.options;
}

describe('--termination-message-path', () => {
  const cases: { name: string; args: string[]; want: string | undefined }[] = [
    { name: 'absent: the default rule (/dev/termination-log when it exists)', args: [], want: undefined },
    { name: 'a file', args: ['--termination-message-path', '/tmp/summary'], want: '/tmp/summary' },
    { name: 'the = form', args: ['--termination-message-path=/dev/termination-log'], want: '/dev/termination-log' },
    { name: 'empty: no summary at all, kept apart from absent', args: ['--termination-message-path', ''], want: '' },
    { name: 'the last one wins', args: ['--termination-message-path', '/a', '--termination-message-path', '/b'], want: '/b' },
  ];
  it.each(cases)('$name', ({ args, want }) => {
    const options = doctor(...args);
    expect(options.terminationMessagePath).toBe(want);
    expect('terminationMessagePath' in options).toBe(want !== undefined);
  });

  it('leaves the other flags as they were', () => {
    const { terminationMessagePath, ...rest } = doctor('-o', 'json', '--termination-message-path', '/t', '--timeout', '2m');
    expect(terminationMessagePath).toBe('/t');
    expect(rest).toMatchObject({ output: 'json', timeoutMs: 120_000 });
  });

  const refused: { name: string; argv: string[]; why: RegExp }[] = [
    { name: 'without a value', argv: ['doctor', '--termination-message-path'], why: /termination-message-path/ },
    { name: 'as a boolean negation', argv: ['doctor', '--no-termination-message-path'], why: /no-termination-message-path/ },
    { name: 'outside the doctor command', argv: ['--termination-message-path', '/t'], why: /unknown command/ },
  ];
  it.each(refused)('is a usage error $name', ({ argv, why }) => {
    expect(() => parseCommandLine(argv)).toThrow(UsageError);
    expect(() => parseCommandLine(argv)).toThrow(why);
  });

  it('is described in the help', () => {
    const help = parseCommandLine(['doctor', '--help']);
    expect(help.kind === 'help' ? help.text : '').toMatch(/--termination-message-path string\s+file for a summary of at most 4 KiB/);
  });
});
