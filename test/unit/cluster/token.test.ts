import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CONTROLLER_TOKEN_PATH, SERVICEACCOUNT_TOKEN_PATH, readBearerToken } from '../../../src/probes/token.ts';

function root(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'icd-token-'));
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
  return dir;
}

describe('the /snapshot bearer token', () => {
  it('defaults to the controller-audience token when it is mounted (deviation 5)', async () => {
    const r = root({ [CONTROLLER_TOKEN_PATH]: 'controller\n', [SERVICEACCOUNT_TOKEN_PATH]: 'serviceaccount' });
    expect(await readBearerToken(undefined, r)).toEqual({ token: 'controller' });
  });
  it('falls back to the ServiceAccount token', async () => {
    expect(await readBearerToken(undefined, root({ [SERVICEACCOUNT_TOKEN_PATH]: 'serviceaccount' }))).toEqual({ token: 'serviceaccount' });
  });
  it('means no token, silently, when no file exists', async () => {
    expect(await readBearerToken(undefined, root({}))).toEqual({ token: '' });
    expect(await readBearerToken('/nonexistent/token', '')).toEqual({ token: '' });
  });
  it('uses an explicit file, and an empty flag means no token', async () => {
    const r = root({ 'mine/token': 'mine' });
    expect(await readBearerToken(join(r, 'mine/token'), '')).toEqual({ token: 'mine' });
    expect(await readBearerToken('', r)).toEqual({ token: '' });
  });
  it('reads an absolute flag path below the container root, a relative one as given', async () => {
    const r = root({ '/var/run/secrets/custom/token': 'in-pod', 'rel/token': 'relative' });
    expect(await readBearerToken('/var/run/secrets/custom/token', r)).toEqual({ token: 'in-pod' });
    expect(await readBearerToken('/var/run/secrets/custom/token', '')).toEqual({ token: '' });
    expect(await readBearerToken(join(r, 'rel/token'), '')).toEqual({ token: 'relative' });
  });
  it('trims Unicode white space the way Go does (U+00A0 and U+0085 too, U+FEFF not)', async () => {
    const r = root({ a: '\u00a0\u0085 tok \n', b: ' \n\t ', c: '\ufefftok' });
    expect((await readBearerToken(join(r, 'a'), '')).token).toBe('tok');
    expect((await readBearerToken(join(r, 'b'), '')).token).toBe('');
    expect((await readBearerToken(join(r, 'c'), '')).token).toBe('\ufefftok');
  });
  it('warns and sends no token when the file cannot be read, without echoing its content', async () => {
    const r = root({ 'dir/x': 'secret' });
    const result = await readBearerToken(join(r, 'dir'), '');
    expect(result.token).toBe('');
    expect(result.warning).toMatch(/could not read --snapshot-token-file ".*dir" \(EISDIR\)/);
    expect(result.warning).not.toContain('secret');
  });
});
