// Every protobuf field the doctor declares (src/cluster/encoding/apimachinery.ts and the Kinds'
// pod-protobuf.ts, event-protobuf.ts), held against the `.proto` definitions of the Kubernetes API the
// project builds against: k8s.io/api and k8s.io/apimachinery at the pinned version (hack/versions.env),
// read from the Go module cache that `npm run tools:build` fills. A declared number or type that is not
// the schema's fails here, before any bytes are read.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readPinnedVersions } from '../../../dev/cluster/controlplane.ts';
import { STATUS, UNKNOWN } from '../../../src/cluster/encoding/apimachinery.ts';
import { EVENT_LIST } from '../../../src/cluster/kinds/event-protobuf.ts';
import { POD_LIST } from '../../../src/cluster/kinds/pod-protobuf.ts';
import { isMessage, messagesOf, type FieldSpec, type MessageType } from '../../../src/protobuf/schema.ts';
import { goModule } from '../../support/go-modules.ts';

/** The staging modules' version for the pinned Kubernetes: v1.36.3 → v0.36.3. */
const STAGING = readPinnedVersions()['KUBERNETES_VERSION']?.replace(/^v1\./, 'v0.') ?? '';

/** The `.proto` file of each package a declaration names, by module. */
const PACKAGES: Readonly<Record<string, { module: string; file: string }>> = {
  'k8s.io.api.core.v1': { module: 'k8s.io/api', file: 'core/v1/generated.proto' },
  'k8s.io.apimachinery.pkg.apis.meta.v1': { module: 'k8s.io/apimachinery', file: 'pkg/apis/meta/v1/generated.proto' },
  'k8s.io.apimachinery.pkg.api.resource': { module: 'k8s.io/apimachinery', file: 'pkg/api/resource/generated.proto' },
  'k8s.io.apimachinery.pkg.runtime': { module: 'k8s.io/apimachinery', file: 'pkg/runtime/generated.proto' },
};

/** A field as a `.proto` file declares it: its label (`optional`, `repeated` or `map`), type and number. */
interface ProtoField {
  readonly label: 'optional' | 'repeated' | 'map';
  /** A scalar's name, a message's full name, or for a map its value type. */
  readonly type: string;
  readonly number: number;
}

/** The messages of one `.proto` file (top-level, as Kubernetes writes them), their fields by name. */
function parseProto(text: string): Map<string, Map<string, ProtoField>> {
  const pkg = /^package\s+([\w.]+)\s*;/m.exec(text)?.[1] ?? '';
  const full = (type: string) => {
    if (type.startsWith('.')) return type.slice(1);
    return /^(?:string|bytes|bool|u?int(?:32|64)|s?fixed(?:32|64)|sint(?:32|64)|double|float)$/.test(type) || type.includes('.')
      ? type
      : `${pkg}.${type}`;
  };
  const messages = new Map<string, Map<string, ProtoField>>();
  const source = text.replace(/\/\/.*$/gm, '');
  for (const m of source.matchAll(/^message\s+(\w+)\s*\{([\s\S]*?)^\}/gm)) {
    const fields = new Map<string, ProtoField>();
    for (const f of (m[2] ?? '').matchAll(/^\s*(optional|repeated)\s+([\w.]+)\s+(\w+)\s*=\s*(\d+)\s*;/gm)) {
      fields.set(f[3] ?? '', { label: f[1] as 'optional' | 'repeated', type: full(f[2] ?? ''), number: Number(f[4]) });
    }
    for (const f of (m[2] ?? '').matchAll(/^\s*map<\s*string\s*,\s*([\w.]+)\s*>\s+(\w+)\s*=\s*(\d+)\s*;/gm)) {
      fields.set(f[2] ?? '', { label: 'map', type: full(f[1] ?? ''), number: Number(f[3]) });
    }
    messages.set(`${pkg}.${m[1] ?? ''}`, fields);
  }
  return messages;
}

/** The type a declared field stands for in a `.proto` file. */
function protoTypeOf(spec: FieldSpec): ProtoField {
  const { type } = spec;
  const label = typeof type === 'object' && !isMessage(type) ? 'map' : spec.repeated === true ? 'repeated' : 'optional';
  if (typeof type === 'string') return { label, type: type === 'enum' ? 'int32' : type, number: spec.number };
  if (isMessage(type)) return { label, type: type.name, number: spec.number };
  return { label, type: type.mapOf === 'string' ? 'string' : type.mapOf.name, number: spec.number };
}

/** Every declared field that the schema does not declare the same, one line each. */
function mismatches(declared: readonly MessageType[], schema: ReadonlyMap<string, ReadonlyMap<string, ProtoField>>): string[] {
  const out: string[] = [];
  for (const type of declared) {
    const fields = schema.get(type.name);
    if (fields === undefined) {
      out.push(`${type.name}: no such message in the schema`);
      continue;
    }
    for (const [name, spec] of Object.entries(type.fields)) {
      const want = fields.get(name);
      const have = protoTypeOf(spec);
      if (want === undefined) out.push(`${type.name}.${name}: no such field in the schema`);
      else if (want.number !== have.number || want.type !== have.type || want.label !== have.label)
        out.push(
          `${type.name}.${name}: declared ${have.label} ${have.type} = ${have.number}, the schema has ${want.label} ${want.type} = ${want.number}`,
        );
    }
  }
  return out;
}

/** The declarations held against the schema: everything the list reader and the Kinds' decoders read. */
const DECLARED = messagesOf([POD_LIST, EVENT_LIST, STATUS, UNKNOWN]);

const modules = ['k8s.io/api', 'k8s.io/apimachinery'].map((module) => ({ module, found: goModule(module, STAGING) }));
const absent = modules.flatMap(({ found }) => ('missing' in found ? [found] : []));
if (absent.some((a) => a.mustFail))
  throw new Error(`the protobuf schema must be checked under CI: ${absent.map((a) => a.missing).join('; ')}`);
const skip = absent.length === 0 ? '' : ` (skipped: ${absent.map((a) => a.missing).join('; ')})`;

/** The schema of every package the declarations name. */
function schema(): Map<string, Map<string, ProtoField>> {
  const all = new Map<string, Map<string, ProtoField>>();
  for (const { module, file } of Object.values(PACKAGES)) {
    const found = modules.find((m) => m.module === module)?.found;
    if (found === undefined || !('dir' in found)) continue;
    for (const [name, fields] of parseProto(readFileSync(join(found.dir, file), 'utf8'))) all.set(name, fields);
  }
  return all;
}

describe.skipIf(absent.length > 0)(`the protobuf declarations against k8s.io/api and k8s.io/apimachinery ${STAGING}${skip}`, () => {
  const proto = absent.length > 0 ? new Map() : schema();

  it('every declared message is in a package the test reads', () => {
    expect(DECLARED.map((t) => t.name).filter((name) => PACKAGES[name.slice(0, name.lastIndexOf('.'))] === undefined)).toEqual([]);
  });

  it('every declared field has the number, type and label of the schema', () => {
    expect(DECLARED.length).toBeGreaterThan(15);
    expect(mismatches(DECLARED, proto)).toEqual([]);
  });

  it('the comparison catches a wrong number, a wrong type, a repeated field declared single, and a field the schema lacks', () => {
    const port = DECLARED.find((t) => t.name === 'k8s.io.api.core.v1.ContainerPort');
    const spec = DECLARED.find((t) => t.name === 'k8s.io.api.core.v1.PodSpec');
    if (port === undefined || spec === undefined) throw new Error('the declarations lack ContainerPort or PodSpec');
    const planted: MessageType[] = [
      { ...port, fields: { ...port.fields, containerPort: { number: 2, type: 'int32' }, protocol: { number: 4, type: 'int32' } } },
      { ...spec, fields: { nodeName: { number: 10, type: 'string', repeated: true }, hostNetworking: { number: 11, type: 'bool' } } },
    ];
    expect(mismatches(planted, proto)).toEqual([
      'k8s.io.api.core.v1.ContainerPort.containerPort: declared optional int32 = 2, the schema has optional int32 = 3',
      'k8s.io.api.core.v1.ContainerPort.protocol: declared optional int32 = 4, the schema has optional string = 4',
      'k8s.io.api.core.v1.PodSpec.nodeName: declared repeated string = 10, the schema has optional string = 10',
      'k8s.io.api.core.v1.PodSpec.hostNetworking: no such field in the schema',
    ]);
  });
});
