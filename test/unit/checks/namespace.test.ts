import { namespaceTable } from './namespace.cases.ts';
import { runTable } from './runner.ts';

runTable(namespaceTable);
