// --now and a suppression's expiry read RFC 3339 as Go's time.Parse does: real instants only.
import { describe, expect, it } from 'vitest';
import { parseRfc3339 } from '../../../src/go/rfc3339.ts';
import { formatGoDuration } from '../../../src/go/duration.ts';

describe('parseRfc3339', () => {
  it.each([
    ['2026-12-05T10:00:00Z', '2026-12-05T10:00:00.000Z'],
    ['2026-12-05T11:00:00.5+01:00', '2026-12-05T10:00:00.500Z'],
    ['2024-02-29T00:00:00Z', '2024-02-29T00:00:00.000Z'],
    ['2000-02-29T23:59:59.999999999-00:30', '2000-03-01T00:29:59.999Z'],
    ['9999-12-31T23:59:59Z', '9999-12-31T23:59:59.000Z'],
    ['0001-01-01T00:00:00Z', '0001-01-01T00:00:00.000Z'],
  ])('%s', (text, iso) => {
    expect(new Date(parseRfc3339(text) as number).toISOString()).toBe(iso);
  });

  it.each([
    '2026-02-30T00:00:00Z',
    '2025-02-29T00:00:00Z',
    '1900-02-29T00:00:00Z',
    '2026-04-31T00:00:00Z',
    '2026-13-01T00:00:00Z',
    '2026-00-10T00:00:00Z',
    '2026-12-00T00:00:00Z',
    '2026-12-05T24:00:00Z',
    '2026-12-05T10:60:00Z',
    '2026-12-05T10:00:60Z',
    '2026-12-05T10:00:00+24:00',
    '2026-12-05T10:00:00',
    '2026-12-05 10:00:00Z',
    '2026-12-05t10:00:00z',
    '2026-12-05T10:00:00.Z',
    '2026-12-05',
    '',
  ])('refuses %j', (text) => {
    expect(parseRfc3339(text)).toBeUndefined();
  });
});

describe('ages centuries long print as Go prints them', () => {
  it.each([
    [Date.UTC(9999, 11, 31) - Date.UTC(2026, 0, 1), '2562047h47m16.854775807s'],
    [-(Date.UTC(9999, 11, 31) - Date.UTC(2026, 0, 1)), '-2562047h47m16.854775808s'],
    [200 * 86_400_000 + 1000, '4800h0m1s'],
    [123_456_789_000, '34293h33m9s'],
  ])('%d ms', (ms, text) => {
    expect(formatGoDuration(ms)).toBe(text);
  });
});
