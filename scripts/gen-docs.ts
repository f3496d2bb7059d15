// Writes docs/codes.md from the code table.
import { writeFileSync } from 'node:fs';
import { codesMarkdown } from '../src/report/codes-listing.ts';

writeFileSync(new URL('../docs/codes.md', import.meta.url), codesMarkdown());
