import { describe, expect, it } from 'vitest';
import { notGivenFindings, notGivenReads } from '../../../src/checks/offline-input.ts';
import { OFFLINE_DECLARATIONS, OFFLINE_INPUT_CASES } from './offline-input.cases.ts';

describe('FI001 and FI002: what a Kind not given costs', () => {
  it.each(OFFLINE_INPUT_CASES)('$name', ({ dropped, want }) => {
    const findings = notGivenFindings(OFFLINE_DECLARATIONS, new Set(dropped));
    expect(findings.map((f) => `${f.code} ${f.resource ?? ''}: ${f.message}`)).toEqual(want);
    for (const f of findings) expect(f).toMatchObject({ status: f.code === 'FI001' ? 'INFO' : 'WARN', check: 'OfflineInput' });
  });

  it('drops exactly the reads whose Kind is not given', () => {
    expect(notGivenReads(['cacheBackends', 'selectedPods', 'installPods', 'events', 'pullSecrets'], new Set(['Pod', 'Secret']))).toEqual(
      new Set(['selectedPods', 'installPods', 'pullSecrets']),
    );
  });
});
