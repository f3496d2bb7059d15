/// <reference types="vite/client" />
/**
 * Every check table, found by file name: each `*.cases.ts` exports its tables, so adding a check's
 * table needs no list to be kept in step here.
 */
import type { CheckTable } from './fixtures.ts';

const modules = import.meta.glob<Record<string, unknown>>('./*.cases.ts', { eager: true });

function isTable(value: unknown): value is CheckTable {
  return typeof value === 'object' && value !== null && 'check' in value && 'cases' in value;
}

/** The tables of every `*.cases.ts`, by file name then export order. */
export const TABLES: readonly CheckTable[] = Object.keys(modules)
  .sort()
  .flatMap((file) => Object.values(modules[file] ?? {}).filter(isTable));
