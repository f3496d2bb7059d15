/**
 * The objects of an operator's files answering the paths the gathering asks the API server for, so
 * that `doctor -f` judges them through the very projections and views of a live run. A Kind the files
 * do not hold (no object of it, no typed list of it) is "not given": its reads fail, and the Kind is
 * recorded in {@link FileApi.notGiven} so that the run can skip the checks that need it and say so.
 *
 * @module
 */

import type { GivenList, ManifestObject, SourceLine } from '../../files/manifest-documents.ts';
import type { ApiResult, ListResult, ObjectSource } from '../transport/kube-api.ts';
import { DUMP_READ_ERROR_ANNOTATION } from '../kinds/secret.ts';
import { KINDS } from '../kinds/kinds.ts';
import { obj, str, strictly } from '../encoding/wire.ts';
import { InputError } from '../../files/input-error.ts';
import type { ApiAccess } from '../kinds/access.ts';

/** What the paths name: a Kind's API group and version, the resource the path spells, and how an object of it is read. */
interface Served {
  readonly kind: string;
  readonly access: ApiAccess;
  readonly project: (raw: unknown) => unknown;
}

/** Every Kind a read may ask for, by `<group>/<version>/<resource>`. */
const SERVED: ReadonlyMap<string, Served> = new Map(
  Object.values(KINDS).map((spec) => [
    `${spec.access.group}/${spec.access.version}/${spec.access.resource}`,
    { kind: spec.kind, access: spec.access, project: spec.project },
  ]),
);

/**
 * Refuses an object of a Kind the checks read that an API server would never have given: without a
 * name, with a name no API path can hold, a namespace that is not a string (or none, in a dump, which
 * writes every namespaced object's), or a field the checks read holding a value of another type (which
 * a live read would never meet, and which would otherwise be judged as an absent field).
 *
 * @throws InputError naming the file and the document.
 */
function refuseMalformed(object: ManifestObject, served: Served): void {
  const where = `${object.source} (${object.kind})`;
  const metadata = object.value['metadata'];
  if (typeof metadata !== 'object' || metadata === null || Array.isArray(metadata))
    throw new InputError(`${where} has no metadata: an object the checks read needs at least metadata.name`);
  const fields = metadata as Readonly<Record<string, unknown>>;
  const name = fields['name'];
  if (typeof name !== 'string' || name === '')
    throw new InputError(
      `${where} has no name: metadata.name must be a non-empty string (generateName is not enough for an object already in a cluster)`,
    );
  if (name.includes('/') || name === '.' || name === '..')
    throw new InputError(`${where} is named ${JSON.stringify(name)}, which no API server stores`);
  const namespace = fields['namespace'];
  if (namespace !== undefined && namespace !== null && typeof namespace !== 'string')
    throw new InputError(`${where} ${name}: metadata.namespace must be a string`);
  // A manifest may leave the namespace to -n, as kubectl apply does; a dump never does.
  if (object.fromDump === true && served.access.namespaced && (typeof namespace !== 'string' || namespace === ''))
    throw new InputError(`${where} ${name} has no namespace, which a dump writes for every namespaced object: the file was edited or cut`);
  strictly(
    (found) => {
      throw new InputError(`${where} ${name}: a field the checks read has the wrong type: ${found}`);
    },
    () => served.project(object.value),
  );
}

/** The key of a Kind in one API group and version. */
function kindKey(group: string, version: string, kind: string): string {
  return `${group}/${version}/${kind}`;
}

/** `v1` → core group; `a.b/v2` → group `a.b`. */
function groupVersion(apiVersion: string): { group: string; version: string } {
  const slash = apiVersion.indexOf('/');
  return slash === -1 ? { group: '', version: apiVersion } : { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1) };
}

/** A path the gathering reads, taken apart. */
interface Asked {
  readonly served: Served;
  /** The namespace the path scopes to; empty for all namespaces (or a cluster-scoped Kind). */
  readonly namespace: string;
  /** The object's name for a GET of one object. */
  readonly name?: string;
}

/** Takes apart a path `collectionPath`/`objectPath` made; undefined for any other. */
function parsePath(path: string): Asked | undefined {
  const m = /^\/(?:api\/(v1)|apis\/([^/]+)\/([^/]+))\/(.*)$/.exec(path);
  if (m === null) return undefined;
  const group = m[2] ?? '';
  const version = m[1] ?? m[3] ?? '';
  const segments = (m[4] ?? '').split('/');
  const scoped = segments[0] === 'namespaces' && segments.length >= 3;
  const rest = scoped ? segments.slice(2) : segments;
  const served = SERVED.get(`${group}/${version}/${rest[0] ?? ''}`);
  if (served === undefined || rest.length > 2) return undefined;
  const namespace = scoped ? (segments[1] ?? '') : '';
  return rest[1] === undefined ? { served, namespace } : { served, namespace, name: rest[1] };
}

/** The sort key of the order an API server lists in: by namespace, then name, as one string (etcd's key order). */
function listKey(value: Readonly<Record<string, unknown>>): string {
  const metadata = obj(value['metadata']);
  return `${str(metadata?.['namespace'])}/${str(metadata?.['name'])}`;
}

function byteCompare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Objects of the files that no read asks for in their version, counted for one warning each. */
export interface IgnoredVersion {
  readonly kind: string;
  readonly apiVersion: string;
  readonly wanted: string;
  readonly count: number;
}

/**
 * An {@link ObjectSource} over the objects of the files, each refused as the files' error when it is
 * malformed (see {@link refuseMalformed}). Namespaced objects without a namespace get
 * `defaultNamespace` (`-n`, else `default`, as kubectl does). Each Kind's objects are kept in the
 * order an API server lists them, so that findings come in the live run's order; an object named twice
 * keeps its last version.
 */
export class FileApi implements ObjectSource {
  readonly #objects = new Map<string, Map<string, Readonly<Record<string, unknown>>>>();
  /** The Kinds a read asked for that the files do not hold. */
  readonly notGiven = new Set<string>();
  /** Objects given twice (same Kind, namespace and name), for a warning. */
  readonly duplicates: string[] = [];
  /**
   * Where each object's text stands, by the resource findings name it with (`pod/prod/engine-0`,
   * `namespace/prod`): for reports that point at lines. A namespace the files give no Namespace object
   * of stands at its first object, the text a reviewer reads for it.
   */
  readonly locations = new Map<string, SourceLine>();

  /**
   * @param covered Kinds (by name) the files hold every object of (`--covers`): given even when the
   *   files hold none, as a typed list of them would make them.
   */
  constructor(objects: readonly ManifestObject[], lists: readonly GivenList[], defaultNamespace: string, covered: readonly string[] = []) {
    for (const spec of SERVED.values()) {
      if (covered.includes(spec.kind)) this.#kind(kindKey(spec.access.group, spec.access.version, spec.kind));
    }
    for (const list of lists) {
      const { group, version } = groupVersion(list.apiVersion);
      this.#kind(kindKey(group, version, list.kind));
    }
    const served = new Map([...SERVED.values()].map((spec) => [kindKey(spec.access.group, spec.access.version, spec.kind), spec]));
    const namespaced = new Map([...served].map(([key, spec]) => [key, spec.access.namespaced]));
    /** The first object's line of each namespace, for a namespace the files hold no Namespace object of. */
    const firstInNamespace = new Map<string, SourceLine>();
    for (const object of objects) {
      const { group, version } = groupVersion(object.apiVersion);
      const key = kindKey(group, version, object.kind);
      const scoped = namespaced.get(key);
      if (scoped === undefined) continue;
      refuseMalformed(object, served.get(key) as Served);
      const value = scoped ? inNamespace(object.value, defaultNamespace) : object.value;
      const byName = this.#kind(key);
      const at = scoped ? listKey(value) : `/${str(obj(value['metadata'])?.['name'])}`;
      if (byName.has(at)) this.duplicates.push(`${object.kind} ${at} (${object.source})`);
      byName.set(at, value);
      // A dump is a snapshot of a cluster, not a file a change is reviewed in: its objects get no lines.
      if (object.at !== undefined && object.fromDump !== true) {
        const namespace = scoped ? str(obj(value['metadata'])?.['namespace']) : undefined;
        const name = str(obj(value['metadata'])?.['name']);
        const kind = object.kind.toLowerCase();
        // The last of two objects with one name counts, as its value does.
        this.locations.set(namespace === undefined ? `${kind}/${name}` : `${kind}/${namespace}/${name}`, object.at);
        if (namespace !== undefined && !firstInNamespace.has(namespace)) firstInNamespace.set(namespace, object.at);
      }
    }
    // A namespace the files give no Namespace object of stands at its first object.
    for (const [namespace, line] of firstInNamespace) {
      if (!this.locations.has(`namespace/${namespace}`)) this.locations.set(`namespace/${namespace}`, line);
    }
    for (const [key, byName] of this.#objects) {
      this.#objects.set(key, new Map([...byName].sort(([a], [b]) => byteCompare(a, b))));
    }
  }

  #kind(key: string): Map<string, Readonly<Record<string, unknown>>> {
    const found = this.#objects.get(key) ?? new Map<string, Readonly<Record<string, unknown>>>();
    this.#objects.set(key, found);
    return found;
  }

  /** The objects of the Kind a path asks for, or undefined (and the Kind noted) when the files do not hold it. */
  #given(asked: Asked): Map<string, Readonly<Record<string, unknown>>> | undefined {
    const { kind, access } = asked.served;
    const found = this.#objects.get(kindKey(access.group, access.version, kind));
    if (found === undefined) this.notGiven.add(kind);
    return found;
  }

  list<T>(path: string, project: (item: unknown) => T | undefined, signal: AbortSignal): Promise<ListResult<T>> {
    const asked = parsePath(path);
    if (asked === undefined || asked.name !== undefined) return Promise.resolve({ ok: false, error: `the files cannot answer ${path}` });
    const found = this.#given(asked);
    if (found === undefined) return Promise.resolve({ ok: false, error: `the files hold no ${asked.served.kind} objects` });
    const items: T[] = [];
    for (const value of found.values()) {
      if (signal.aborted) return Promise.resolve({ ok: false, error: 'the run was stopped' });
      if (asked.namespace !== '' && str(obj(value['metadata'])?.['namespace']) !== asked.namespace) continue;
      const item = project(value);
      if (item !== undefined) items.push(item);
    }
    return Promise.resolve({ ok: true, items });
  }

  get(path: string): Promise<ApiResult> {
    const asked = parsePath(path);
    if (asked?.name === undefined) return Promise.resolve({ ok: false, error: `the files cannot answer ${path}` });
    const found = this.#given(asked);
    if (found === undefined) return Promise.resolve({ ok: false, error: `the files hold no ${asked.served.kind} objects` });
    const value = found.get(`${asked.served.access.namespaced ? asked.namespace : ''}/${asked.name}`);
    if (value === undefined)
      return Promise.resolve({ ok: false, status: 404, error: `${asked.served.kind} ${asked.name} is not in the files` });
    const unread = recordedFailure(value);
    return Promise.resolve(unread ?? { ok: true, body: value });
  }

  /** The Kinds the files hold in a version no read asks for, by Kind and version. */
  static ignoredVersions(objects: readonly ManifestObject[]): IgnoredVersion[] {
    const wanted = new Map([...SERVED.values()].map(({ kind, access }) => [`${access.group}/${kind}`, access]));
    const counts = new Map<string, IgnoredVersion>();
    for (const object of objects) {
      const { group, version } = groupVersion(object.apiVersion);
      const access = wanted.get(`${group}/${object.kind}`);
      if (access === undefined || access.version === version) continue;
      const key = `${object.apiVersion} ${object.kind}`;
      const seen = counts.get(key);
      const want = access.group === '' ? access.version : `${access.group}/${access.version}`;
      counts.set(key, { kind: object.kind, apiVersion: object.apiVersion, wanted: want, count: (seen?.count ?? 0) + 1 });
    }
    return [...counts.values()];
  }
}

/** The object with `metadata.namespace` set to `namespace` when it has none. */
function inNamespace(value: Readonly<Record<string, unknown>>, namespace: string): Readonly<Record<string, unknown>> {
  const metadata = obj(value['metadata']) ?? {};
  if (str(metadata['namespace']) !== '') return value;
  return { ...value, metadata: { ...metadata, namespace } };
}

/** The failed read a dump recorded on a Secret in place of its content. */
function recordedFailure(value: Readonly<Record<string, unknown>>): ApiResult | undefined {
  const recorded = str(obj(obj(value['metadata'])?.['annotations'])?.[DUMP_READ_ERROR_ANNOTATION]);
  if (recorded === '') return undefined;
  const m = /^(\d{3}) ([\s\S]*)$/.exec(recorded);
  return m === null ? { ok: false, error: recorded } : { ok: false, status: Number(m[1]), error: m[2] ?? '' };
}
