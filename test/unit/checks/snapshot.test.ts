import { runTable } from './runner.ts';
import { snapshotTable } from './snapshot.cases.ts';

runTable(snapshotTable);
