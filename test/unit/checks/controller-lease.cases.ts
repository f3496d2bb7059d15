/** ControllerLease (CL, beyond upstream): docs/deviations.md. */
import { controllerLease } from '../../../src/checks/controller-lease.ts';

import { MINUTE, SECOND, ago, failed, given, ok, omit, type Case, type CheckTable } from './fixtures.ts';
import type { ControllerLease } from '../../../src/cluster/kinds/lease.ts';

const NAME = 'inference-cache-controller-leader-lock';
const R = `lease/inference-cache-system/${NAME}`;
const HOLDER = 'inference-cache-controller-manager-7977545d5b-mpssp_70e95bff';
const lease = (o: Partial<ControllerLease> = {}): ControllerLease => ({
  namespace: 'inference-cache-system',
  name: NAME,
  holderIdentity: HOLDER,
  renewTime: ago(3 * SECOND),
  leaseDurationSeconds: 15,
  ...o,
});
const leases = (...items: ControllerLease[]) => given({ leases: ok(items) });

export const controllerLeaseCases: readonly Case[] = [
  {
    name: 'list failed → single API001 on the bare kind',
    input: given({ leases: failed('leases.coordination.k8s.io is forbidden') }),
    expected: [['API001', 'Lease', ['forbidden']]],
  },
  { name: 'no leader Lease (leader election off, or out of scope) → nothing', input: given({}), expected: [] },
  {
    name: 'renewed 3 s ago → CL002 naming the holder',
    input: leases(lease()),
    expected: [['CL002', R, [`"${HOLDER}"`, 'renewed 3s ago']]],
  },
  {
    name: 'renewed exactly at the bound (1 minute for a 15 s lease) → still CL002',
    input: leases(lease({ renewTime: ago(MINUTE) })),
    expected: [['CL002', R]],
  },
  {
    name: 'renewed 5 minutes ago → CL001 with the age, the holder and the bound',
    input: leases(lease({ renewTime: ago(5 * MINUTE) })),
    expected: [['CL001', R, ['5m0s ago', `"${HOLDER}"`, 'beyond the 1m0s']]],
  },
  {
    name: 'a 60 s lease may be 4 minutes late: renewed 3 minutes ago → CL002',
    input: leases(lease({ renewTime: ago(3 * MINUTE), leaseDurationSeconds: 60 })),
    expected: [['CL002', R]],
  },
  {
    name: 'a 60 s lease renewed 5 minutes ago → CL001 with a 4m0s bound',
    input: leases(lease({ renewTime: ago(5 * MINUTE), leaseDurationSeconds: 60 })),
    expected: [['CL001', R, ['beyond the 4m0s']]],
  },
  {
    name: 'no leaseDurationSeconds, or a nonsense one → the 15 s default',
    input: leases(lease({ renewTime: ago(2 * MINUTE), leaseDurationSeconds: -4 })),
    expected: [['CL001', R, ['beyond the 1m0s']]],
  },
  {
    name: 'released (no holder) → CL001',
    input: leases(omit(lease(), 'holderIdentity')),
    expected: [['CL001', R, ['no holder']]],
  },
  {
    name: 'held, no renewTime → CL001',
    input: leases(omit(lease(), 'renewTime')),
    expected: [['CL001', R, ['no renewTime']]],
  },
  {
    name: 'renewed in the future (a skewed clock) → CL002, 0s ago',
    input: leases(lease({ renewTime: ago(-30 * SECOND) })),
    expected: [['CL002', R, ['renewed 0s ago']]],
  },
  {
    name: 'two installs, one stopped → one finding each, in list order',
    input: leases(lease(), lease({ namespace: 'other', renewTime: ago(10 * MINUTE) })),
    expected: [
      ['CL002', R],
      ['CL001', `lease/other/${NAME}`],
    ],
  },
];

export const controllerLeaseTable: CheckTable = { check: controllerLease, cases: controllerLeaseCases };
