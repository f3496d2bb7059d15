// Writes docs/codes.md from the code table, which derives from the check declarations.
import { writeFileSync } from 'node:fs';
import { codeTable } from '../src/checks/codes.ts';
import { codesMarkdown } from '../src/report/code-table.ts';

writeFileSync(new URL('../docs/codes.md', import.meta.url), codesMarkdown(codeTable()));
