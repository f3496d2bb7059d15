import { networkPolicyTable } from './network-policy.cases.ts';
import { runTable } from './runner.ts';

runTable(networkPolicyTable);
