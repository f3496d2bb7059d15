import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseCommandLine } from '../../../src/cli/parse.ts';
import { parsePodLabels, readDoctorPod } from '../../../src/cluster/gather/pod-identity.ts';

describe('the downward-API labels file', () => {
  it('reads key="value" lines with Go-quoted values', () => {
    const text = [
      'app.kubernetes.io/component="controller"',
      'app.kubernetes.io/name="inference-cache"',
      'empty=""',
      'quoted="say \\"hi\\"\\tand\\\\more"',
      'unicode="caf\\u00e9 \\U0001f600 \\xc3\\xa9 \\303\\251"',
      'plain-utf8="naïve"',
      'not a label line',
      'bad="unterminated',
      '',
    ].join('\n');
    expect(parsePodLabels(text)).toEqual({
      'app.kubernetes.io/component': 'controller',
      'app.kubernetes.io/name': 'inference-cache',
      empty: '',
      quoted: 'say "hi"\tand\\more',
      unicode: 'café 😀 é é',
      'plain-utf8': 'naïve',
    });
  });
  it('handles CRLF line ends and a missing final newline', () => {
    expect(parsePodLabels('a="1"\r\nb="2"')).toEqual({ a: '1', b: '2' });
  });
});

describe('readDoctorPod', () => {
  const dir = mkdtempSync(join(tmpdir(), 'icd-podinfo-'));
  const file = join(dir, 'labels');
  writeFileSync(file, 'app="doctor"\n');

  it('no POD_NAMESPACE: no identity (a workstation)', async () => {
    expect(await readDoctorPod({}, file)).toBeUndefined();
    expect(await readDoctorPod({ namespace: '', name: 'p' }, file)).toBeUndefined();
  });
  it('POD_NAMESPACE, POD_NAME and a readable file: namespace, name and labels', async () => {
    expect(await readDoctorPod({ namespace: 'tools', name: 'doctor-test' }, file)).toEqual({
      namespace: 'tools',
      name: 'doctor-test',
      labelsFile: file,
      labels: { app: 'doctor' },
    });
  });
  it('without POD_NAME the pod has no name, so none of the pods read is taken for it', async () => {
    expect(await readDoctorPod({ namespace: 'tools', name: '' }, file)).toEqual({
      namespace: 'tools',
      labelsFile: file,
      labels: { app: 'doctor' },
    });
  });
  it('an unreadable file leaves the labels unknown, with the reason', async () => {
    expect(await readDoctorPod({ namespace: 'ns' }, join(dir, 'missing'))).toEqual({
      namespace: 'ns',
      labelsFile: join(dir, 'missing'),
      labelsError: 'ENOENT',
    });
    expect(await readDoctorPod({ namespace: 'ns' }, dir)).toMatchObject({ labelsError: 'it is a directory, not a regular file' });
  });
});

describe('--pod-labels-file', () => {
  const doctor = (...args: string[]) => {
    const command = parseCommandLine(['doctor', ...args]);
    if (command.kind !== 'doctor') throw new Error(command.kind);
    return command.options;
  };
  it('is absent by default (the chart mount, /etc/podinfo/labels, applies)', () => {
    expect(doctor().podLabelsFile).toBeUndefined();
  });
  it('takes a path', () => {
    expect(doctor('--pod-labels-file', '/podinfo/labels').podLabelsFile).toBe('/podinfo/labels');
    expect(doctor('--pod-labels-file=/x').podLabelsFile).toBe('/x');
  });
  it('is in the help', () => {
    const help = parseCommandLine(['doctor', '--help']);
    expect(help.kind === 'help' ? help.text : '').toContain('--pod-labels-file');
  });
});
