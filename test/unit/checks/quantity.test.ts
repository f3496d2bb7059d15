import { describe, expect, it } from 'vitest';
import { effectiveRequests, describeAmounts, refusedQuantities } from '../../../src/checks/pod-requests.ts';
import { NANO, addAmounts, compareAmounts, formatQuantity, nanos, parseQuantity, type Amount } from '../../../src/checks/quantity.ts';

const n = (units: bigint | number) => nanos(BigInt(units) * NANO);
/** The amount as a bigint of nano-units, for the amounts small enough to write out. */
const big = (a: Amount | undefined) => (a === undefined ? undefined : a.coefficient * 10n ** BigInt(a.exponent));

describe('parseQuantity: exactly what the API server accepts, in nano-units', () => {
  it.each([
    ['500m', 500_000_000n],
    ['1.5', 1_500_000_000n],
    ['1', big(n(1))],
    ['0', 0n],
    ['.5', 500_000_000n],
    ['1.', big(n(1))],
    ['+2', big(n(2))],
    ['-1', -(big(n(1)) ?? 0n)],
    ['-500m', -500_000_000n],
    ['100u', 1_000_000n],
    ['1001u', 2_000_000n],
    ['7n', 1_000_000n],
    ['16Gi', big(n(16n << 30n))],
    ['1Ki', big(n(1024))],
    ['1.5Gi', big(n(3n << 29n))],
    ['0.1Ki', big(n(1024)) === undefined ? 0n : (big(n(1024)) as bigint) / 10n],
    ['2Mi', big(n(2n << 20n))],
    ['3Ti', big(n(3n << 40n))],
    ['1Pi', big(n(1n << 50n))],
    ['1Ei', big(n(1n << 60n))],
    ['1e3', big(n(1000))],
    ['1E3', big(n(1000))],
    ['1e+3', big(n(1000))],
    ['25e-3', 25_000_000n],
    ['1.5e2', big(n(150))],
    ['64M', big(n(64_000_000))],
    ['1k', big(n(1000))],
    ['2G', big(n(2_000_000_000))],
    ['1T', big(n(10n ** 12n))],
    ['1P', big(n(10n ** 15n))],
    ['2E', big(n(2n * 10n ** 18n))],
    ['12345678901234567890', big(n(12345678901234567890n))],
    // The JSON decoder trims white space before the quantity is read.
    [' 1 ', big(n(1))],
    ['\t2\n', big(n(2))],
    // What the API server's reader makes of texts without digits: zero.
    ['m', 0n],
    ['.', 0n],
    ['+', 0n],
    ['-', 0n],
    ['e3', 0n],
    ['Ki', 0n],
    ['Ti', 0n],
    ['00Ei', 0n],
    ['e-9', 0n],
    ['1.G', big(n(1_000_000_000))],
    ['007', big(n(7))],
    // A binary-suffixed amount is capped at the largest int64 of units.
    ['9999999999Ei', big(n((1n << 63n) - 1n))],
    ['-9999999999Ei', -(big(n((1n << 63n) - 1n)) ?? 0n)],
    // The exponent is read as an int64 and wrapped to 32 bits.
    ['1e4294967296', big(n(1))],
    ['1e4294967299', big(n(1000))],
  ])('%j', (text, expected) => {
    expect(big(parseQuantity(text))).toBe(expected);
  });

  it('arbitrary exponents, kept as a power of ten, never expanded', () => {
    expect(parseQuantity('1e400')).toEqual({ coefficient: 1n, exponent: 409 });
    expect(parseQuantity('10e399')).toEqual({ coefficient: 1n, exponent: 409 });
    expect(parseQuantity('1e2147483647')).toEqual({ coefficient: 1n, exponent: 2147483656 });
    expect(parseQuantity('-3e2147483647')).toEqual({ coefficient: -3n, exponent: 2147483656 });
    expect(parseQuantity('1e-2147483648')).toEqual({ coefficient: 1n, exponent: 6 });
  });

  it('rounds a fraction below one milli-unit away from zero, never to zero, as the API server stores it', () => {
    expect(big(parseQuantity('1e-12'))).toBe(1_000_000n);
    expect(big(parseQuantity('0.0000000001'))).toBe(1_000_000n);
    expect(big(parseQuantity('1.0000000001'))).toBe((big(n(1)) ?? 0n) + 1_000_000n);
    expect(big(parseQuantity('-1e-12'))).toBe(-1_000_000n);
    expect(big(parseQuantity('33.7646075Ki'))).toBe(34_574_959_000_000n);
  });

  it('compares without float rounding: 0.1 + 0.2 is exactly 300m', () => {
    expect(addAmounts(parseQuantity('0.1') as Amount, parseQuantity('0.2') as Amount)).toEqual(parseQuantity('300m'));
  });

  it.each([
    '',
    ' ',
    'abc',
    '1.2.3',
    '1Kb',
    '1KiB',
    '1 Gi',
    '1e',
    '1e+',
    '1e1.5',
    '--1',
    'Infinity',
    'NaN',
    '0x10',
    '1+2',
    '1e9223372036854775808',
    '1ki',
    '１',
  ])('%j is refused, as the API server refuses it', (text) => {
    expect(parseQuantity(text)).toBeUndefined();
  });
});

describe('compareAmounts and addAmounts: exact whatever the exponents', () => {
  const q = (text: string) => parseQuantity(text) as Amount;
  it.each([
    ['1e400', '1e399', 1],
    ['1e400', '10e399', 0],
    ['1e400', '1e2147483647', -1],
    ['-1e400', '1', -1],
    ['-1e400', '-1e399', -1],
    ['999', '1k', -1],
    ['1Ei', '1E', 1],
    ['0', '-0', 0],
    ['1n', '0', 1],
    ['1n', '1m', 0],
  ])('%s against %s', (a, b, want) => {
    expect(compareAmounts(q(a), q(b))).toBe(want);
    expect(compareAmounts(q(b), q(a))).toBe(want === 0 ? 0 : -want);
  });
  it('sums exactly across hundreds of orders of magnitude', () => {
    const sum = addAmounts(q('1e400'), q('1m'));
    expect(compareAmounts(sum, q('1e400'))).toBe(1);
    expect(compareAmounts(addAmounts(q('1e400'), q('-1e400')), q('0'))).toBe(0);
  });
});

describe('formatQuantity', () => {
  it.each([
    [n(2), 'cpu', '2'],
    [nanos(1_500_000_000n), 'cpu', '1500m'],
    [nanos(100_000n), 'cpu', '100000n'],
    [n(16n << 30n), 'memory', '16Gi'],
    [n(64_000_000), 'memory', '64M'],
    [n(1024), 'memory', '1Ki'],
    [n(1000), 'memory', '1k'],
    [n(3), 'nvidia.com/gpu', '3'],
    [nanos(0n), 'nvidia.com/gpu', '0'],
    [n(1536), 'memory', '1536'],
    [n(2n * 10n ** 18n), 'example.com/units', '2E'],
    [parseQuantity('1e400') as Amount, 'cpu', '10e399'],
    [parseQuantity('1e2147483647') as Amount, 'memory', '10e2147483646'],
  ])('%o %s → %s', (amount, resource, text) => {
    expect(formatQuantity(amount, resource)).toBe(text);
  });
});

describe('effectiveRequests: max(sum(containers) + sidecars, max(init + sidecars before it)) + overhead', () => {
  it('sums containers, takes the max of init containers', () => {
    const got = effectiveRequests({
      containers: [{ cpu: '1', memory: '1Gi' }, { cpu: '500m' }],
      initContainers: [
        { requests: { cpu: '2' }, sidecar: false },
        { requests: { memory: '512Mi' }, sidecar: false },
      ],
    });
    expect(describeAmounts(got)).toBe('cpu 2, memory 1Gi');
  });
  it('no requests at all → an empty request', () => {
    expect(effectiveRequests(undefined).size).toBe(0);
    expect(effectiveRequests({ containers: [{}], initContainers: [] }).size).toBe(0);
  });
  it('adds the overhead and orders cpu, memory, then the rest by name', () => {
    const got = effectiveRequests({
      containers: [{ 'z.io/x': '1', 'nvidia.com/gpu': '1', memory: '1Gi', cpu: '1' }],
      initContainers: [],
      overhead: { cpu: '100m', memory: '64Mi' },
    });
    expect(describeAmounts(got)).toBe('cpu 1100m, memory 1088Mi, nvidia.com/gpu 1, z.io/x 1');
  });
  it('leaves out quantities that do not parse; refusedQuantities names them and the negative ones', () => {
    const requests = { containers: [{ cpu: 'lots', memory: '1Gi' }, { 'nvidia.com/gpu': '-1' }], initContainers: [] };
    expect(describeAmounts(effectiveRequests(requests))).toBe('memory 1Gi');
    expect(refusedQuantities(requests)).toEqual(['cpu "lots"', 'nvidia.com/gpu "-1"']);
    expect(refusedQuantities({ containers: [{ cpu: '1e400' }], initContainers: [] })).toEqual([]);
  });
});
