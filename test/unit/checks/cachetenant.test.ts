import { cacheTenantTable } from './cachetenant.cases.ts';
import { runTable } from './runner.ts';

runTable(cacheTenantTable);
