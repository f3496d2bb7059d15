// Every check's table of fixtures → expected findings (positive and negative cases side by side).
import { runTable } from './runner.ts';
import { TABLES } from './tables.ts';

for (const table of TABLES) runTable(table);
