import { describe, expect, it } from 'vitest';
import { forTerminal } from '../../../src/report/terminal-text.ts';

/** Every character the escaping must never let through raw. */
// eslint-disable-next-line no-control-regex -- matching control characters is what this test is for
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

describe('forTerminal', () => {
  it.each<[string, string, string]>([
    ['plain text', 'cachebackend/ns/be', 'cachebackend/ns/be'],
    ['printable non-ASCII stays', 'café — 日本 🙂', 'café — 日本 🙂'],
    ['ESC of a CSI sequence (clear screen)', '\u001b[2J', '\\x1b[2J'],
    ['OSC 52 clipboard write with BEL', '\u001b]52;c;ZXZpbA==\u0007', '\\x1b]52;c;ZXZpbA==\\x07'],
    ['newline, carriage return, tab', 'a\nb\rc\td', 'a\\nb\\rc\\td'],
    ['NUL, backspace, DEL', '\u0000\b\u007f', '\\x00\\x08\\x7f'],
    ['C1 controls (CSI as one byte, NEL)', '\u009b2J\u0085', '\\x9b2J\\x85'],
    ['line and paragraph separators', '\u2028\u2029', '\\u2028\\u2029'],
    ['bidi override and isolates', '\u202egnp.exe\u2066\u2069\u200f\u061c', '\\u202egnp.exe\\u2066\\u2069\\u200f\\u061c'],
  ])('%s', (_, input, want) => {
    expect(forTerminal(input).toString()).toBe(want);
  });

  it('lets no unsafe character through, whatever the input', () => {
    const everything = Array.from({ length: 0x3000 }, (_, cp) => String.fromCodePoint(cp)).join('');
    const shown = forTerminal(everything).toString();
    expect(UNSAFE.test(shown)).toBe(false);
    expect(shown).toContain('\\x1b');
  });
});
