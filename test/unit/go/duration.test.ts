import { describe, expect, it } from 'vitest';
import { formatGoDuration, parseGoDuration, roundToSecondMs } from '../../../src/go/duration.ts';

describe('formatGoDuration after roundToSecondMs (ages in messages)', () => {
  it.each<[number, string]>([
    [0, '0s'],
    [-0, '0s'],
    [1, '0s'],
    [499, '0s'],
    [-499, '0s'],
    [500, '1s'],
    [1_500, '2s'],
    [2_500, '3s'],
    [-1_500, '-2s'],
    [-500, '-1s'],
    [5_000, '5s'],
    [59_499, '59s'],
    [59_500, '1m0s'],
    [60_000, '1m0s'],
    [120_400, '2m0s'],
    [600_000, '10m0s'],
    [3_599_000, '59m59s'],
    [3_600_000, '1h0m0s'],
    [3_723_000, '1h2m3s'],
    [-3_723_000, '-1h2m3s'],
    [90_000_000, '25h0m0s'],
    [86_400_000 * 400, '9600h0m0s'],
  ])('%d ms → %s', (ms, want) => {
    expect(formatGoDuration(roundToSecondMs(ms))).toBe(want);
  });

  it.each<[number, number]>([
    [0, 0],
    [-400, 0],
    [1_499.9, 1_000],
    [1_500, 2_000],
    [-1_500, -2_000],
    [120_400, 120_000],
  ])('roundToSecondMs(%d) = %d', (ms, want) => {
    expect(Object.is(roundToSecondMs(ms), want)).toBe(true);
  });

  it('refuses non-finite durations', () => {
    expect(() => formatGoDuration(Number.NaN)).toThrow(RangeError);
    expect(() => roundToSecondMs(Number.POSITIVE_INFINITY)).toThrow(RangeError);
  });
});

describe('formatGoDuration (Go Duration.String, exact)', () => {
  it.each<[number, string]>([
    [0, '0s'],
    [0.000001, '1ns'],
    [0.00075, '750ns'],
    [0.0015, '1.5µs'],
    [0.001, '1µs'],
    [1, '1ms'],
    [300, '300ms'],
    [1.25, '1.25ms'],
    [999, '999ms'],
    [1_000, '1s'],
    [1_500, '1.5s'],
    [59_000, '59s'],
    [60_000, '1m0s'],
    [90_000, '1m30s'],
    [120_250, '2m0.25s'],
    [3_600_000, '1h0m0s'],
    [3_723_000.5, '1h2m3.0005s'],
    [-1_500, '-1.5s'],
    [-300, '-300ms'],
    [600 * 3_600_000, '600h0m0s'],
  ])('%d ms → %s', (ms, want) => {
    expect(formatGoDuration(ms)).toBe(want);
  });
});

describe('parseGoDuration (Go time.ParseDuration, in ms)', () => {
  it.each([
    ['500ms', 500],
    ['30s', 30_000],
    ['2m', 120_000],
    ['1h30m', 5_400_000],
    ['1.5s', 1500],
    ['0', 0],
    ['-2s', -2000],
    ['+3s', 3000],
    ['1m30.5s', 90_500],
    ['250us', 0.25],
    ['250µs', 0.25],
    ['100ns', 0.0001],
    ['.5s', 500],
  ])('%s is %d ms', (text, ms) => expect(parseGoDuration(text)).toBeCloseTo(ms, 6));
  it.each(['30', '', 's', '1x', '1.s5', '5 s', '1h 30m', '--1s', '.s', 'abc'])('%j is refused', (text) => {
    expect(parseGoDuration(text)).toBeUndefined();
  });
  it.each(['1.5s', '2m0.25s', '1h0m0s', '300ms', '-1m30s'])('reads back what formatGoDuration writes: %s', (text) => {
    expect(formatGoDuration(parseGoDuration(text) ?? Number.NaN)).toBe(text);
  });
});
