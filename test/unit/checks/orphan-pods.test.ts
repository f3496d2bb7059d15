import { orphanPodTable } from './orphan-pods.cases.ts';
import { runTable } from './runner.ts';

runTable(orphanPodTable);
