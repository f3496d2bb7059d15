import { enginePodTable } from './engine-pod.cases.ts';
import { runTable } from './runner.ts';

runTable(enginePodTable);
