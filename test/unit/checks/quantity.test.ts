import { describe, expect, it } from 'vitest';
import { effectiveRequests, describeAmounts } from '../../../src/checks/pod-requests.ts';
import { NANO, formatQuantity, parseQuantity } from '../../../src/checks/quantity.ts';

const n = (units: bigint | number) => BigInt(units) * NANO;

describe('parseQuantity: every Kubernetes form, exactly, in nano-units', () => {
  it.each([
    ['500m', 500_000_000n],
    ['1.5', 1_500_000_000n],
    ['1', n(1)],
    ['0', 0n],
    ['.5', 500_000_000n],
    ['1.', n(1)],
    ['+2', n(2)],
    ['-1', -n(1)],
    ['-500m', -500_000_000n],
    ['100u', 100_000n],
    ['7n', 7n],
    ['16Gi', n(16n << 30n)],
    ['1Ki', n(1024)],
    ['1.5Gi', n(3n << 29n)],
    ['0.1Ki', n(1024) / 10n],
    ['2Mi', n(2n << 20n)],
    ['3Ti', n(3n << 40n)],
    ['1Pi', n(1n << 50n)],
    ['1Ei', n(1n << 60n)],
    ['1e3', n(1000)],
    ['1E3', n(1000)],
    ['1e+3', n(1000)],
    ['25e-3', 25_000_000n],
    ['1.5e2', n(150)],
    ['64M', n(64_000_000)],
    ['1k', n(1000)],
    ['2G', n(2_000_000_000)],
    ['1T', n(10n ** 12n)],
    ['1P', n(10n ** 15n)],
    ['2E', n(2n * 10n ** 18n)],
    ['12345678901234567890', n(12345678901234567890n)],
    [' 1 ', n(1)],
  ])('%s', (text, expected) => {
    expect(parseQuantity(text)).toBe(expected);
  });

  it('rounds a fraction below one nano-unit up, never to zero', () => {
    expect(parseQuantity('1e-12')).toBe(1n);
    expect(parseQuantity('0.0000000001')).toBe(1n);
    expect(parseQuantity('1.0000000001')).toBe(n(1) + 1n);
  });

  it('compares without float rounding: 0.1 + 0.2 is exactly 300m', () => {
    expect((parseQuantity('0.1') ?? 0n) + (parseQuantity('0.2') ?? 0n)).toBe(parseQuantity('300m'));
  });

  it.each(['', 'abc', '1.2.3', '1Kb', '1KiB', 'm', '1 Gi', '1e', '1e1.5', '--1', '1e999', 'Infinity', 'NaN', '0x10'])(
    '%j is not a quantity',
    (text) => {
      expect(parseQuantity(text)).toBeUndefined();
    },
  );
});

describe('formatQuantity', () => {
  it.each([
    [n(2), 'cpu', '2'],
    [1_500_000_000n, 'cpu', '1500m'],
    [100_000n, 'cpu', '100000n'],
    [n(16n << 30n), 'memory', '16Gi'],
    [n(64_000_000), 'memory', '64M'],
    [n(1024), 'memory', '1Ki'],
    [n(1000), 'memory', '1k'],
    [n(3), 'nvidia.com/gpu', '3'],
    [0n, 'nvidia.com/gpu', '0'],
    [n(1536), 'memory', '1536'],
    [n(2n * 10n ** 18n), 'example.com/units', '2E'],
  ])('%s %s → %s', (nanos, resource, text) => {
    expect(formatQuantity(nanos, resource)).toBe(text);
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
  it('ignores quantities that do not parse', () => {
    expect(describeAmounts(effectiveRequests({ containers: [{ cpu: 'lots', memory: '1Gi' }], initContainers: [] }))).toBe('memory 1Gi');
  });
});
