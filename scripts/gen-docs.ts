// Writes docs/codes.md from the code table, which derives from the check declarations, and the flag
// table of README.md from the flag declarations (only the region between its marker comments).
import { readFileSync, writeFileSync } from 'node:fs';
import { codeTable } from '../src/checks/codes.ts';
import { DOCTOR_FLAGS } from '../src/cli/flags.ts';
import { flagsMarkdown, withFlagsTable } from '../src/cli/flags-markdown.ts';
import { codesMarkdown } from '../src/report/code-table.ts';

writeFileSync(new URL('../docs/codes.md', import.meta.url), codesMarkdown(codeTable()));

const readme = new URL('../README.md', import.meta.url);
writeFileSync(readme, withFlagsTable(readFileSync(readme, 'utf8'), flagsMarkdown(DOCTOR_FLAGS)));
