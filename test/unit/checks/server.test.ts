import { runTable } from './runner.ts';
import { serverTable } from './server.cases.ts';

runTable(serverTable);
