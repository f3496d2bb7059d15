// Writes docs/codes.md from the code table, which derives from the check declarations; three tables of
// README.md (only the regions between their marker comments): the flags from the flag declarations, the
// size caps of operator files from the file reader's kinds, the output formats from their declarations; and the tables of docs/protobuf.md from the
// protobuf declarations; the table of docs/offline.md from the Kinds' dump policies; and the flag and metric tables of
// docs/monitor.md from the monitor's flag declarations and the metrics catalogue.
import { readFileSync, writeFileSync } from 'node:fs';
import { codeTable } from '../src/checks/codes.ts';
import { DOCTOR_FLAGS } from '../src/cli/flags.ts';
import { flagsMarkdown, withFlagsTable } from '../src/cli/flags-markdown.ts';
import { FILE_CAPS_MARKERS, fileCapsMarkdown } from '../src/files/operator-file-markdown.ts';
import { codesMarkdown } from '../src/report/code-table.ts';
import { FORMATS_MARKERS, formatsMarkdown } from '../src/report/output-formats.ts';
import { withRegion } from '../src/text/generated-region.ts';
import { PROTOBUF_FIELDS_MARKERS, protobufFieldsMarkdown } from '../src/cluster/kinds/protobuf-markdown.ts';
import { DUMP_POLICIES_MARKERS, dumpPoliciesMarkdown } from '../src/cluster/kinds/dump-markdown.ts';
import { MONITOR_FLAGS, MONITOR_FLAGS_MARKERS } from '../src/cli/monitor-flags.ts';
import { METRICS_MARKERS, metricsMarkdown } from '../src/metrics/catalogue-markdown.ts';

writeFileSync(new URL('../docs/codes.md', import.meta.url), codesMarkdown(codeTable()));

const readme = new URL('../README.md', import.meta.url);
const withFlags = withFlagsTable(readFileSync(readme, 'utf8'), flagsMarkdown(DOCTOR_FLAGS));
writeFileSync(readme, withRegion(withRegion(withFlags, FILE_CAPS_MARKERS, fileCapsMarkdown()), FORMATS_MARKERS, formatsMarkdown()));

const protobuf = new URL('../docs/protobuf.md', import.meta.url);
writeFileSync(protobuf, withRegion(readFileSync(protobuf, 'utf8'), PROTOBUF_FIELDS_MARKERS, protobufFieldsMarkdown()));

const offline = new URL('../docs/offline.md', import.meta.url);
writeFileSync(offline, withRegion(readFileSync(offline, 'utf8'), DUMP_POLICIES_MARKERS, dumpPoliciesMarkdown()));

const monitor = new URL('../docs/monitor.md', import.meta.url);
writeFileSync(
  monitor,
  withRegion(
    withRegion(readFileSync(monitor, 'utf8'), MONITOR_FLAGS_MARKERS, flagsMarkdown(MONITOR_FLAGS)),
    METRICS_MARKERS,
    metricsMarkdown(),
  ),
);
