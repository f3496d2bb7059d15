// Markdown as GitHub renders it: cmark-gfm (Debian's package of GitHub's fork of cmark) with the extensions
// github.com turns on for comments and job summaries: tables, autolinks, strikethrough and the tag filter.
import { spawnSync } from 'node:child_process';

/** Why cmark-gfm cannot run here ('' when it can); CI installs it (.ci/run), so there it must. */
export function cmarkMissing(): string {
  const probe = spawnSync('cmark-gfm', ['--version'], { encoding: 'utf8' });
  if (probe.error === undefined) return '';
  if (process.env['CI'] === 'true') throw new Error(`cmark-gfm must run under CI (apt-get install cmark-gfm): ${probe.error.message}`);
  return 'cmark-gfm is not installed (apt-get install cmark-gfm)';
}

/** `markdown` rendered to HTML as GitHub renders it (raw HTML kept, as GitHub keeps the tags it allows). */
export function renderGfm(markdown: string): string {
  const extensions = ['table', 'autolink', 'strikethrough', 'tagfilter'].flatMap((e) => ['--extension', e]);
  const run = spawnSync('cmark-gfm', [...extensions, '--unsafe'], { input: markdown, encoding: 'utf8', timeout: 60_000 });
  if (run.status !== 0) throw new Error(`cmark-gfm failed (${String(run.status)}): ${run.stderr}`);
  return run.stdout;
}
