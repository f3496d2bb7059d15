/**
 * Greedy word wrap for the texts the CLI prints itself (help, `inferencecache explain`): lines of at
 * most `width` characters, broken at blanks only, so that a long word (a URL, a command) stays whole on
 * a line of its own rather than being split where a reader would copy it.
 */
export function wrapWords(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ').filter((w) => w !== '')) {
    if (line === '') line = word;
    else if (line.length + 1 + word.length <= width) line += ` ${word}`;
    else {
      lines.push(line);
      line = word;
    }
  }
  if (line !== '') lines.push(line);
  return lines;
}
