// What Artifact Hub's linter (`ah lint`) and its repository indexer refuse in a chart's `artifacthub.io/*`
// annotations and in artifacthub-repo.yml, as rules of our own. Its module is not served by the Go
// module proxy here, so `ah` cannot be built in CI; these rules were read from its source (the Helm
// annotation parser, the image and change validators, the repository metadata reader) and are listed
// in docs/distribution.md, "Artifact Hub". Each returns the problems it finds ([] when none), so that
// a test can show it refuses what Artifact Hub refuses.
import { parse } from 'yaml';

/** The annotations Artifact Hub reads from a Helm chart; another `artifacthub.io/` key is a typo. */
export const ARTIFACT_HUB_ANNOTATIONS = [
  'alternativeName',
  'category',
  'changes',
  'containsSecurityUpdates',
  'crds',
  'crdsExamples',
  'images',
  'license',
  'links',
  'maintainers',
  'operator',
  'operatorCapabilities',
  'prerelease',
  'recommendations',
  'screenshots',
  'signKey',
].map((name) => `artifacthub.io/${name}`);

/** The categories Artifact Hub knows (`skip-prediction` turns its guessing off). */
const CATEGORIES = [
  'skip-prediction',
  'ai-machine-learning',
  'database',
  'integration-delivery',
  'monitoring-logging',
  'networking',
  'security',
  'storage',
  'streaming-messaging',
];

/** The kinds a change may have (case does not matter). */
const CHANGE_KINDS = ['added', 'changed', 'deprecated', 'removed', 'fixed', 'security'];

const OPERATOR_CAPABILITIES = ['basic install', 'seamless upgrades', 'full lifecycle', 'deep insights', 'auto pilot'];

/** A boolean as Go's strconv.ParseBool reads one. */
const GO_BOOL = /^(1|t|T|TRUE|true|True|0|f|F|FALSE|false|False)$/;

/**
 * An image reference as the OCI distribution spec writes one: an optional registry host, a lowercase
 * repository path, then a tag, a digest or both.
 */
const PATH_COMPONENT = '[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*';
const IMAGE_REFERENCE = new RegExp(
  `^(?:(?:[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?(?:\\.[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?)*|\\[[0-9a-fA-F:]+\\])(?::[0-9]+)?/)?` +
    `${PATH_COMPONENT}(?:/${PATH_COMPONENT})*(?::[\\w][\\w.-]{0,127})?(?:@sha256:[a-f0-9]{64})?$`,
);

/** Whether `text` is an image reference Artifact Hub accepts. */
export function isImageReference(text: string): boolean {
  return text.length <= 255 && IMAGE_REFERENCE.test(text);
}

/** A YAML annotation's value as a list, or the problem. */
function yamlList(value: string, what: string): { list?: unknown[]; problem?: string } {
  try {
    const parsed: unknown = parse(value);
    if (parsed === null || parsed === undefined) return { list: [] };
    if (!Array.isArray(parsed)) return { problem: `${what}: not a YAML list` };
    return { list: parsed };
  } catch (err) {
    return { problem: `${what}: not YAML (${(err as Error).message.split('\n')[0] ?? ''})` };
  }
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const text = (v: unknown): string => (typeof v === 'string' ? v : '');

/** The problems Artifact Hub's linter reports for a chart's annotations. */
export function artifactHubAnnotationProblems(annotations: Readonly<Record<string, string>>): string[] {
  const problems: string[] = [];
  for (const key of Object.keys(annotations))
    if (key.startsWith('artifacthub.io/') && !ARTIFACT_HUB_ANNOTATIONS.includes(key))
      problems.push(`${key}: Artifact Hub reads no such annotation`);
  const get = (name: string) => annotations[`artifacthub.io/${name}`];

  const category = get('category');
  if (category !== undefined && !CATEGORIES.includes(category)) problems.push(`category: ${JSON.stringify(category)} is not a category`);

  for (const name of ['containsSecurityUpdates', 'operator', 'prerelease']) {
    const value = get(name);
    if (value !== undefined && !GO_BOOL.test(value)) problems.push(`${name}: ${JSON.stringify(value)} is not a boolean`);
  }
  const capabilities = get('operatorCapabilities');
  if (capabilities !== undefined && !OPERATOR_CAPABILITIES.includes(capabilities.toLowerCase()))
    problems.push(`operatorCapabilities: ${JSON.stringify(capabilities)} is not a capability level`);

  const changes = get('changes');
  if (changes !== undefined) {
    const { list, problem } = yamlList(changes, 'changes');
    if (problem !== undefined) problems.push(problem);
    for (const [i, change] of (list ?? []).entries()) {
      if (typeof change === 'string') {
        if (change === '') problems.push(`changes[${i}]: no description`);
        continue;
      }
      if (!isRecord(change)) {
        problems.push(`changes[${i}]: neither a description nor a change`);
        continue;
      }
      const kind = text(change['kind']);
      if (kind !== '' && !CHANGE_KINDS.includes(kind.toLowerCase()))
        problems.push(`changes[${i}]: kind ${JSON.stringify(kind)} is not one of ${CHANGE_KINDS.join(', ')}`);
      if (text(change['description']) === '') problems.push(`changes[${i}]: no description`);
      const links = change['links'] ?? [];
      for (const [j, link] of (Array.isArray(links) ? links : [links]).entries())
        if (!isRecord(link) || text(link['name']) === '' || text(link['url']) === '')
          problems.push(`changes[${i}].links[${j}]: a link needs a name and a url`);
    }
  }

  const images = get('images');
  if (images !== undefined) {
    const { list, problem } = yamlList(images, 'images');
    if (problem !== undefined) problems.push(problem);
    for (const [i, image] of (list ?? []).entries()) {
      if (!isRecord(image)) {
        problems.push(`images[${i}]: not a name and an image`);
        continue;
      }
      if (!isImageReference(text(image['image'])))
        problems.push(`images[${i}]: ${JSON.stringify(image['image'])} is not an image reference`);
      if (
        image['platforms'] !== undefined &&
        !(Array.isArray(image['platforms']) && image['platforms'].every((p) => typeof p === 'string'))
      )
        problems.push(`images[${i}]: platforms must be a list of strings`);
    }
  }

  for (const name of ['links', 'maintainers', 'recommendations', 'screenshots', 'crds', 'crdsExamples']) {
    const value = get(name);
    if (value === undefined) continue;
    const { list, problem } = yamlList(value, name);
    if (problem !== undefined) problems.push(problem);
    if (name === 'links')
      for (const [i, link] of (list ?? []).entries())
        if (!isRecord(link) || text(link['name']) === '' || !/^https?:\/\/\S+$/.test(text(link['url'])))
          problems.push(`links[${i}]: a link needs a name and an http(s) url`);
  }

  const signKey = get('signKey');
  if (signKey !== undefined) {
    let key: unknown;
    try {
      key = parse(signKey);
    } catch {
      key = undefined;
    }
    if (!isRecord(key)) problems.push('signKey: not a YAML mapping');
    else if (text(key['url']) === '') problems.push('signKey: no url, which Artifact Hub requires');
  }
  return problems;
}

/** An RFC 4122 UUID, as Artifact Hub's repository ID is. */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The problems Artifact Hub reports for an artifacthub-repo.yml, and keys it would silently ignore. */
export function artifactHubRepoProblems(content: string): string[] {
  let doc: unknown;
  try {
    doc = parse(content);
  } catch (err) {
    return [`not YAML: ${(err as Error).message.split('\n')[0] ?? ''}`];
  }
  if (!isRecord(doc)) return ['not a YAML mapping'];
  const problems: string[] = [];
  for (const key of Object.keys(doc))
    if (!['repositoryID', 'owners', 'ignore'].includes(key)) problems.push(`${key}: Artifact Hub reads no such key`);
  const id = doc['repositoryID'];
  if (id !== undefined && !(typeof id === 'string' && UUID.test(id))) problems.push('repositoryID: not a UUID');
  const owners = doc['owners'] ?? [];
  if (!Array.isArray(owners)) problems.push('owners: not a list');
  else
    for (const [i, owner] of owners.entries())
      if (!isRecord(owner) || text(owner['name']) === '' || !/^\S+@\S+$/.test(text(owner['email'])))
        problems.push(`owners[${i}]: an owner needs a name and an email`);
  const ignore = doc['ignore'] ?? [];
  if (!Array.isArray(ignore)) problems.push('ignore: not a list');
  else
    for (const [i, entry] of ignore.entries()) {
      if (!isRecord(entry) || text(entry['name']) === '') {
        problems.push(`ignore[${i}]: an entry needs the name of a package`);
        continue;
      }
      const version = entry['version'];
      if (version !== undefined)
        try {
          new RegExp(text(version));
        } catch {
          problems.push(`ignore[${i}]: version ${JSON.stringify(version)} is not a regular expression`);
        }
    }
  return problems;
}
