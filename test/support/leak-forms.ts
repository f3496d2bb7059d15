// Every form in which a secret could leak into text: as it is, URL-encoded, and its base64 at each
// of the three alignments it can start at inside a longer base64 run (with the characters that
// depend on its neighbours cut off), so that a test grepping for them cannot miss an embedded copy.

/** The base64 of `secret` as it appears wherever it starts at byte offset 0, 1 or 2 of a longer run. */
function base64Alignments(secret: string): string[] {
  const out: string[] = [];
  for (let pad = 0; pad < 3; pad++) {
    const encoded = Buffer.concat([Buffer.alloc(pad), Buffer.from(secret)]).toString('base64');
    // The first characters mix the padding's bits and the last ones its neighbours': keep the stable middle.
    const skip = pad === 0 ? 0 : Math.ceil((pad * 8) / 6) + 1;
    const stable = encoded.replace(/=+$/, '').slice(skip, -2);
    if (stable.length >= 4) out.push(stable);
  }
  return out;
}

/** The forms of `secret` no output may contain. */
export function leakForms(secret: string): string[] {
  return [...new Set([secret, encodeURIComponent(secret), ...base64Alignments(secret)])];
}

/** The first form of any of `secrets` that `text` contains, or undefined. */
export function leakIn(text: string, secrets: readonly string[]): string | undefined {
  for (const secret of secrets) for (const form of leakForms(secret)) if (text.includes(form)) return `${secret} (as ${form})`;
  return undefined;
}
