import { policyTable, probeTable } from './routes.cases.ts';
import { runTable } from './runner.ts';

runTable(policyTable);
runTable(probeTable);
