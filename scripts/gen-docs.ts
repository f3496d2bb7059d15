// Writes docs/codes.md from the code table, which derives from the check declarations, and two tables of
// README.md (only the regions between their marker comments): the flags from the flag declarations, the
// size caps of operator files from the file reader's kinds.
import { readFileSync, writeFileSync } from 'node:fs';
import { codeTable } from '../src/checks/codes.ts';
import { DOCTOR_FLAGS } from '../src/cli/flags.ts';
import { flagsMarkdown, withFlagsTable } from '../src/cli/flags-markdown.ts';
import { FILE_CAPS_MARKERS, fileCapsMarkdown } from '../src/files/operator-file-markdown.ts';
import { codesMarkdown } from '../src/report/code-table.ts';
import { withRegion } from '../src/text/generated-region.ts';

writeFileSync(new URL('../docs/codes.md', import.meta.url), codesMarkdown(codeTable()));

const readme = new URL('../README.md', import.meta.url);
const withFlags = withFlagsTable(readFileSync(readme, 'utf8'), flagsMarkdown(DOCTOR_FLAGS));
writeFileSync(readme, withRegion(withFlags, FILE_CAPS_MARKERS, fileCapsMarkdown()));
