// The real product's install (dev/cluster/upstream/): where its programs are looked for must be where
// hack/build-tools.sh builds them (the layout is computed once per language), and the kustomization over
// upstream's config/default must change only what a user changes: the two images, the pull secret on
// the Deployments, the controller's subscriber image, and the pull secret itself.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { nodeBinaries } from '../../../dev/cluster/node/node.ts';
import { upstreamImageRefs } from '../../../dev/cluster/upstream/images.ts';
import { renderUpstream, userKustomization } from '../../../dev/cluster/upstream/product.ts';
import { certManagerPrograms, upstreamPrograms, upstreamSourceDir } from '../../../dev/cluster/upstream/programs.ts';
import { PROJECT_ROOT } from '../../../dev/paths.ts';

const shell = (variable: string) =>
  execFileSync('bash', ['-c', `source hack/lib.sh && printf %s "$${variable}"`], { cwd: PROJECT_ROOT, encoding: 'utf8' });

describe('where the product and cert-manager are built', () => {
  it('names the folders hack/lib.sh names', () => {
    expect(dirname(upstreamPrograms().controller)).toBe(shell('UPSTREAM_DIR'));
    expect(dirname(certManagerPrograms().controller)).toBe(shell('CERT_MANAGER_DIR'));
  });

  it('reads the source tree hack/lib.sh builds from', () => {
    const built = shell('UPSTREAM_SRC_DIR');
    if (!existsSync(built)) return;
    expect(realpathSync(upstreamSourceDir())).toBe(realpathSync(built));
  });
});

const REGISTRY = { host: '127.0.0.1:5000', caFile: '', certDir: '', user: 'u', password: 'p', hostsDir: '', pid: 0 };
const IMAGES = upstreamImageRefs(REGISTRY);

describe("the user's kustomization", () => {
  it('names upstream relative to itself (kustomize refuses absolute roots) and changes only images, pull secret and subscriber image', () => {
    const dir = '/tmp/somewhere/upstream-default';
    const k = userKustomization(dir, 'default', IMAGES);
    expect(k['resources']).toEqual([relative(dir, join(upstreamSourceDir(), 'config', 'default')), 'pull-secret.yaml']);
    expect(k['images']).toEqual([
      {
        name: 'ghcr.io/cachebox-project/inference-cache-controller',
        newName: '127.0.0.1:5000/cachebox-project/inference-cache-controller',
        newTag: IMAGES.controller.split(':').pop(),
      },
      {
        name: 'ghcr.io/cachebox-project/inference-cache-server',
        newName: '127.0.0.1:5000/cachebox-project/inference-cache-server',
        newTag: IMAGES.server.split(':').pop(),
      },
    ]);
    expect(JSON.stringify(k['patches'])).toContain('imagePullSecrets');
    expect(JSON.stringify(k['patches'])).toContain(`--kvevent-subscriber-image=${IMAGES.kveventSubscriber}`);
    expect(userKustomization(dir, 'server-tls', IMAGES)['resources']).toEqual([
      relative(dir, join(upstreamSourceDir(), 'config', 'overlays', 'server-tls')),
      'pull-secret.yaml',
    ]);
  });

  const kubectl = nodeBinaries().kubectl;
  const missing = [kubectl, join(upstreamSourceDir(), 'config', 'default')].filter((f) => !existsSync(f));
  if (missing.length > 0 && process.env['CI'] === 'true') throw new Error(`missing under CI: ${missing.join(', ')}`);
  const scratch = mkdtempSync(join(tmpdir(), 'icd-kustomize-'));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it.skipIf(missing.length > 0)(
    `renders upstream's objects with only those changes${missing.length > 0 ? ` (skipped: missing ${missing.join(', ')})` : ''}`,
    () => {
      type Obj = { kind: string; metadata: { name: string }; spec?: { template?: { spec?: Record<string, unknown> } } };
      const parse = (text: string) => parseAllDocuments(text).map((d) => d.toJSON() as Obj);
      const ours = parse(renderUpstream(kubectl, join(scratch, 'k'), 'default', IMAGES, REGISTRY));
      const theirs = parse(execFileSync(kubectl, ['kustomize', join(upstreamSourceDir(), 'config', 'default')], { encoding: 'utf8' }));
      const key = (o: Obj) => `${o.kind}/${o.metadata.name}`;
      expect(
        ours
          .map(key)
          .filter((k) => k !== 'Secret/registry-creds')
          .sort(),
      ).toEqual(theirs.map(key).sort());
      for (const mine of ours) {
        const upstream = theirs.find((t) => key(t) === key(mine));
        if (upstream === undefined) continue;
        if (mine.kind !== 'Deployment') {
          expect(mine, key(mine)).toEqual(upstream);
          continue;
        }
        // Undo the three changes: what is left must be upstream's Deployment exactly.
        const undone = structuredClone(mine);
        const pod = undone.spec?.template?.spec as { imagePullSecrets?: unknown; containers: { image: string; args?: string[] }[] };
        const was = upstream.spec?.template?.spec as { containers: { image: string; args?: string[] }[] };
        const container = pod.containers[0];
        if (container === undefined) throw new Error(`no container in ${key(mine)}`);
        expect(pod.imagePullSecrets).toEqual([{ name: 'registry-creds' }]);
        delete pod.imagePullSecrets;
        expect(container.image.startsWith('127.0.0.1:5000/cachebox-project/')).toBe(true);
        container.image = was.containers[0]?.image ?? '';
        const added = (container.args ?? []).filter((a) => !(was.containers[0]?.args ?? []).includes(a));
        expect(added).toEqual(
          mine.metadata.name === 'inference-cache-controller-manager' ? [`--kvevent-subscriber-image=${IMAGES.kveventSubscriber}`] : [],
        );
        container.args = (container.args ?? []).filter((a) => !added.includes(a));
        expect(undone, key(mine)).toEqual(upstream);
      }
    },
  );
});
