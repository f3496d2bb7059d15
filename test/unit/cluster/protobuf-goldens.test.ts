// The protobuf decoder against a real API server's answers: the Pods and Events of
// dev/cluster/protobuf-sample.ts, listed once in protobuf and once in JSON by
// scripts/record-protobuf-goldens.ts and kept in test/golden/protobuf/. The bytes were encoded by
// Kubernetes itself, not by a fixture written with the decoder's own field numbers, so a wrong number
// in a declaration shows here: the decoded item differs from the same item's JSON. Also: the sample
// sets every field the declarations declare, and the projections read no field they do not declare.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../../dev/paths.ts';
import { parseApiJson } from '../../../src/cluster/encoding/api-json.ts';
import { ProtobufListReader, type ProtobufList } from '../../../src/cluster/encoding/protobuf-list.ts';
import { EVENT, EVENT_LIST, decodeEvent, eventDecoder } from '../../../src/cluster/kinds/event-protobuf.ts';
import { projectEvent } from '../../../src/cluster/kinds/event.ts';
import { POD, POD_LIST, WAITING, decodePod } from '../../../src/cluster/kinds/pod-protobuf.ts';
import { projectPod } from '../../../src/cluster/kinds/pod.ts';
import { isWaitingForNode } from '../../../src/cluster/kinds/pod-waiting.ts';
import type { Decoded } from '../../../src/protobuf/decode.ts';
import { isMessage, without, type MessageType } from '../../../src/protobuf/schema.ts';
import { PROTOBUF_FIELDS_MARKERS, protobufFieldsMarkdown } from '../../../src/cluster/kinds/protobuf-markdown.ts';
import { withRegion } from '../../../src/text/generated-region.ts';

const GOLDEN = join(PROJECT_ROOT, 'test/golden/protobuf');
const recorded = JSON.parse(readFileSync(join(GOLDEN, 'recorded.json'), 'utf8')) as { kubernetes: string };

/** The items of a recorded list in protobuf, read by the doctor's list reader fed `chunk` bytes at a time. */
function protobufItems(name: string, protobuf: ProtobufList, chunk = Infinity): unknown[] {
  const bytes = readFileSync(join(GOLDEN, `${name}.pb`));
  const items: unknown[] = [];
  const reader = new ProtobufListReader(protobuf, { onItem: (item) => items.push(item) });
  for (let at = 0; at < bytes.length; at += chunk) reader.push(bytes.subarray(at, Math.min(bytes.length, at + chunk)));
  expect(reader.end()).toMatchObject({ ok: true });
  return items;
}

/** The items of a recorded list in JSON, parsed as the doctor parses the API server's JSON. */
function jsonItems(name: string): Record<string, unknown>[] {
  const list = parseApiJson(readFileSync(join(GOLDEN, `${name}.json`), 'utf8')) as { items: Record<string, unknown>[] };
  return list.items;
}

/**
 * `value` (an item's JSON, or its decoded protobuf) holding only what `type` declares, without the
 * values an encoding writes that the other leaves out: empty strings, zeros, empty objects and arrays
 * (the API server's protobuf writes every string field, its JSON omits the empty ones).
 */
function declared(value: unknown, type: MessageType): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [name, spec] of Object.entries(type.fields)) {
    const written = (value as Record<string, unknown>)[name];
    const inner = spec.type;
    const prefix = spec.keyPrefix;
    // A map keeps only the keys under its prefix, if it has one.
    const field =
      prefix === undefined || typeof written !== 'object' || written === null
        ? written
        : Object.fromEntries(Object.entries(written).filter(([key]) => key.startsWith(prefix)));
    const one = (v: unknown) => (isMessage(inner) && inner.json === undefined ? declared(v, inner) : v);
    const kept = Array.isArray(field) ? field.map(one) : one(field);
    if (!isEmptyValue(kept)) out[name] = kept;
  }
  return out;
}

function isEmptyValue(v: unknown): boolean {
  if (v === undefined || v === null || v === '' || v === 0) return true;
  if (Array.isArray(v)) return v.length === 0;
  return typeof v === 'object' && v !== null && Object.values(v).every(isEmptyValue);
}

/** Whether a decoded or listed pod waits for a node (and so has what it asks of one decoded). */
function waits(pod: unknown): boolean {
  const p = pod as { spec?: { nodeName?: string }; status?: { phase?: string } };
  return isWaitingForNode({ phase: p.status?.phase, nodeName: p.spec?.nodeName === '' ? undefined : p.spec?.nodeName });
}

/** What joins the steps of a path: no key of a map or field of a message holds a line break. */
const SEP = '\n';

/** A path as a reader reads it, steps joined by dots. */
function shown(path: string): string {
  return path.split(SEP).join('.');
}

/** The paths of the leaves `type` declares; a map's keys as its path and `*`. */
function declaredPaths(type: MessageType, prefix = ''): string[] {
  return Object.entries(type.fields).flatMap(([name, spec]) => {
    const path = `${prefix}${name}`;
    const inner = spec.type;
    if (isMessage(inner) && inner.json === undefined) return declaredPaths(inner, `${path}${SEP}`);
    if (typeof inner === 'object' && !isMessage(inner)) return [`${path}${SEP}*`];
    return [path];
  });
}

/** The paths of the leaves `value` holds, array elements stepped through. */
function leafPaths(value: unknown, prefix = ''): string[] {
  if (Array.isArray(value)) return value.flatMap((v) => leafPaths(v, prefix));
  if (typeof value !== 'object' || value === null) return [prefix.slice(0, -SEP.length)];
  return Object.entries(value).flatMap(([k, v]) => leafPaths(v, `${prefix}${k}${SEP}`));
}

/** Whether `path` is one of `paths`, a map's `*` standing for any key, or leads to one. */
function isDeclared(path: string, paths: ReadonlySet<string>): boolean {
  if (paths.has(path) || paths.has(`${path.slice(0, path.lastIndexOf(SEP))}${SEP}*`)) return true;
  return [...paths].some((p) => p.startsWith(`${path}${SEP}`));
}

/**
 * The fields (`<message>.<field>`) that `value`, an item's JSON, sets somewhere: the message a field
 * belongs to is known from the declaration, so a field declared once and used in several places
 * (a Container's, for containers and init containers) counts once.
 */
function fieldsSet(value: unknown, type: MessageType, into = new Set<string>()): Set<string> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return into;
  for (const [name, spec] of Object.entries(type.fields)) {
    const field = (value as Record<string, unknown>)[name];
    if (isEmptyValue(field)) continue;
    into.add(`${type.name}.${name}`);
    const inner = spec.type;
    const nested = isMessage(inner) && inner.json === undefined ? inner : undefined;
    if (nested !== undefined) for (const v of Array.isArray(field) ? field : [field]) fieldsSet(v, nested, into);
  }
  return into;
}

/** Every field (`<message>.<field>`) `type` declares, at any depth. */
function fieldsDeclared(type: MessageType, into = new Set<string>()): Set<string> {
  for (const [name, spec] of Object.entries(type.fields)) {
    into.add(`${type.name}.${name}`);
    const inner = spec.type;
    if (isMessage(inner) && inner.json === undefined) fieldsDeclared(inner, into);
  }
  return into;
}

/**
 * The paths of `value` that `project` reads: `value` is wrapped so that every property looked up on
 * an object is recorded (array elements as the array's own path).
 */
function pathsRead(value: unknown, project: (raw: unknown) => unknown): Set<string> {
  const read = new Set<string>();
  const wrap = (v: unknown, path: string): unknown => {
    if (typeof v !== 'object' || v === null) return v;
    return new Proxy(v, {
      get(target, key, receiver) {
        const got: unknown = Reflect.get(target, key, receiver);
        if (typeof key !== 'string' || (Array.isArray(target) && !/^\d+$/.test(key))) return got;
        const next = Array.isArray(target) ? path : path === '' ? key : `${path}${SEP}${key}`;
        if (!Array.isArray(target)) read.add(next);
        return wrap(got, next);
      },
    });
  };
  project(wrap(value, ''));
  return read;
}

/** The paths `project` reads of `items` that `type` does not declare, as readers read them. */
function undeclaredReads(type: MessageType, items: readonly unknown[], project: (raw: unknown) => unknown): string[] {
  const paths = new Set(declaredPaths(type));
  return [...new Set(items.flatMap((item) => [...pathsRead(item, project)].filter((p) => !isDeclared(p, paths)).map(shown)))];
}

describe(`the protobuf decoder against the API server's own answers (Kubernetes ${recorded.kubernetes}, test/golden/protobuf)`, () => {
  const pods = { json: jsonItems('pods'), protobuf: protobufItems('pods', { list: POD_LIST, decode: decodePod }) };
  const events = { json: jsonItems('events'), protobuf: protobufItems('events', { list: EVENT_LIST, decode: decodeEvent }) };

  it('holds the sample: five pods, five Events', () => {
    expect(pods.protobuf).toHaveLength(5);
    expect(pods.json).toHaveLength(5);
    expect(events.protobuf).toHaveLength(5);
    expect(events.json).toHaveLength(5);
  });

  it('decodes each pod to exactly its JSON, field for declared field (what it asks of a node only while it waits for one)', () => {
    pods.protobuf.forEach((decoded, i) => {
      const json = pods.json[i];
      const type = waits(json) ? POD : without(POD, WAITING);
      expect(declared(decoded, type)).toEqual(declared(json, type));
    });
    expect(pods.json.filter(waits).length).toBeGreaterThan(0);
  });

  it('decodes each Event to exactly its JSON, field for declared field', () => {
    events.protobuf.forEach((decoded, i) => expect(declared(decoded, EVENT)).toEqual(declared(events.json[i], EVENT)));
  });

  it('projects every pod and Event the same from either encoding', () => {
    pods.protobuf.forEach((decoded, i) => expect(projectPod(decoded)).toEqual(projectPod(pods.json[i])));
    events.protobuf.forEach((decoded, i) => expect(projectEvent(decoded)).toEqual(projectEvent(events.json[i])));
  });

  it.each([
    ['every Event', () => true],
    ['injections about Pods', (reason: string, kind: string) => kind === 'Pod' && reason === 'InjectedByCacheBackend'],
    ['no-match Events about Pods', (reason: string, kind: string) => kind === 'Pod' && reason === 'NoMatchingCacheBackend'],
    ['none', () => false],
  ])('keeps and turns down the same Events either way: %s', (_name, wanted) => {
    const decoded = protobufItems('events', { list: EVENT_LIST, decode: eventDecoder(wanted) });
    decoded.forEach((item, i) => expect(projectEvent(item, wanted)).toEqual(projectEvent(events.json[i], wanted)));
  });

  it('reads the same items however the bytes arrive: one at a time, or in chunks of 7', () => {
    expect(protobufItems('pods', { list: POD_LIST, decode: decodePod }, 1)).toEqual(pods.protobuf);
    expect(protobufItems('events', { list: EVENT_LIST, decode: decodeEvent }, 7)).toEqual(events.protobuf);
  });

  it('the sample sets every field the Pod and Event declarations declare', () => {
    for (const [type, items] of [
      [POD, pods.json],
      [EVENT, events.json],
    ] as const) {
      const set = new Set<string>();
      for (const item of items) fieldsSet(item, type, set);
      expect([...fieldsDeclared(type)].filter((field) => !set.has(field))).toEqual([]);
    }
  });

  it('the projections read no field their Kind does not declare (which the decoder would leave out)', () => {
    expect(undeclaredReads(POD, pods.json, projectPod)).toEqual([]);
    expect(undeclaredReads(EVENT, events.json, (raw) => projectEvent(raw))).toEqual([]);
  });

  it('the path check catches a projection reading an undeclared field', () => {
    const sneaky = (raw: unknown) => (raw as { spec?: { hostNetwork?: unknown } }).spec?.hostNetwork;
    expect(undeclaredReads(POD, pods.json.slice(0, 1), sneaky)).toEqual(['spec.hostNetwork']);
  });

  it('decoded items hold only declared fields (nothing else of the object is kept)', () => {
    const paths = new Set(declaredPaths(POD));
    const kept = new Set(pods.protobuf.flatMap((item) => leafPaths(item as Decoded)));
    expect([...kept].filter((p) => !isDeclared(p, paths)).map(shown)).toEqual([]);
  });
});

describe('docs/protobuf.md', () => {
  it('holds the tables the declarations make (run `npm run docs` after changing one)', () => {
    const page = readFileSync(join(PROJECT_ROOT, 'docs/protobuf.md'), 'utf8');
    expect(withRegion(page, PROTOBUF_FIELDS_MARKERS, protobufFieldsMarkdown()), 'docs/protobuf.md is stale: run `npm run docs`').toBe(page);
    expect(protobufFieldsMarkdown()).toContain('| `ContainerPort` | name (1), containerPort (3), protocol (4) |');
  });
});
