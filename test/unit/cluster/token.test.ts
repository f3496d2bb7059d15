import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readBearerToken, type TokenFiles } from '../../../src/probes/token.ts';

/** A pod's token files in a fresh directory, with the given contents (absent when not given). */
function pod(files: { controller?: string; serviceAccount?: string; [other: string]: string | undefined }): {
  dir: string;
  files: TokenFiles;
} {
  const dir = mkdtempSync(join(tmpdir(), 'icd-token-'));
  const paths: TokenFiles = {
    controllerToken: join(dir, 'controller-token/token'),
    serviceAccountToken: join(dir, 'serviceaccount/token'),
  };
  for (const [name, content] of Object.entries(files)) {
    if (content === undefined) continue;
    const path = name === 'controller' ? paths.controllerToken : name === 'serviceAccount' ? paths.serviceAccountToken : join(dir, name);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, content);
  }
  return { dir, files: paths };
}

describe('the /snapshot bearer token', () => {
  it('defaults to the controller-audience token when it is mounted (docs/deviations.md#dev-5)', async () => {
    expect(await readBearerToken(undefined, pod({ controller: 'controller\n', serviceAccount: 'serviceaccount' }).files)).toEqual({
      token: 'controller',
    });
  });
  it('falls back to the ServiceAccount token', async () => {
    expect(await readBearerToken(undefined, pod({ serviceAccount: 'serviceaccount' }).files)).toEqual({ token: 'serviceaccount' });
  });
  it('means no token, silently, when no file exists', async () => {
    const { files } = pod({});
    expect(await readBearerToken(undefined, files)).toEqual({ token: '' });
    expect(await readBearerToken('/nonexistent/token', files)).toEqual({ token: '' });
  });
  it('uses an explicit file over the pod files, and an empty flag means no token', async () => {
    const { dir, files } = pod({ controller: 'controller', 'mine/token': 'mine' });
    expect(await readBearerToken(join(dir, 'mine/token'), files)).toEqual({ token: 'mine' });
    expect(await readBearerToken('', files)).toEqual({ token: '' });
  });
  it('trims Unicode white space the way Go does (U+00A0 and U+0085 too, U+FEFF not)', async () => {
    const { dir, files } = pod({ a: '\u00a0\u0085 tok \n', b: ' \n\t ', c: '\ufefftok' });
    expect((await readBearerToken(join(dir, 'a'), files)).token).toBe('tok');
    expect((await readBearerToken(join(dir, 'b'), files)).token).toBe('');
    expect((await readBearerToken(join(dir, 'c'), files)).token).toBe('\ufefftok');
  });
  it('warns and sends no token when the file cannot be read, without echoing its content', async () => {
    const { dir, files } = pod({ 'dir/x': 'secret' });
    const result = await readBearerToken(join(dir, 'dir'), files);
    expect(result.token).toBe('');
    expect(result.warning).toMatch(/could not read --snapshot-token-file ".*dir" \(it is a directory, not a regular file\)/);
    expect(result.warning).not.toContain('secret');
  });
});
