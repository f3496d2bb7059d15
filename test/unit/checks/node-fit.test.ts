import { nodeFitTable } from './node-fit.cases.ts';
import { runTable } from './runner.ts';

runTable(nodeFitTable);
