import { cachePolicyTable } from './cachepolicy.cases.ts';
import { runTable } from './runner.ts';

runTable(cachePolicyTable);
