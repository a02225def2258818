// The wire definitions (the .proto files beside this module), parsed with protobufjs on first use
// and compiled into the small descriptors codec.ts walks: per message, its fields in number order
// with their wire type, what they hold and the two JSON facts the .proto options carry.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Field, MapField, Root, Type } from 'protobufjs';
import { protobuf } from '../../packages.js';

const PROTO_FILES = ['runtime.proto', 'resource.proto', 'intstr.proto', 'meta-v1.proto', 'core-v1.proto', 'policy-v1.proto'];

/**
 * Where the .proto files are. The compiled module runs from dist/reference/apiserver/protobuf/ and
 * tsc does not copy .proto files: beside the module first (a packaging step may put them there),
 * then the source tree.
 */
export function protoDir(): string {
  const candidates = [new URL('./', import.meta.url), new URL('../../../../reference/apiserver/protobuf/', import.meta.url)];
  for (const c of candidates) {
    const dir = fileURLToPath(c);
    if (existsSync(`${dir}core-v1.proto`)) return dir;
  }
  throw new Error(`reference/apiserver/protobuf/*.proto not found (looked in ${candidates.map((c) => fileURLToPath(c)).join(', ')})`);
}

/** Values that are messages on the wire and plain JSON values in objects (codec.ts converts them). */
export type Special = 'time' | 'quantity' | 'intOrString' | 'fieldsV1' | 'rawExtension';

const SPECIALS: ReadonlyMap<string, Special> = new Map([
  ['k8s.io.apimachinery.pkg.apis.meta.v1.Time', 'time'],
  ['k8s.io.apimachinery.pkg.api.resource.Quantity', 'quantity'],
  ['k8s.io.apimachinery.pkg.util.intstr.IntOrString', 'intOrString'],
  ['k8s.io.apimachinery.pkg.apis.meta.v1.FieldsV1', 'fieldsV1'],
  ['k8s.io.apimachinery.pkg.runtime.RawExtension', 'rawExtension'],
]);

export type Scalar = 'string' | 'bool' | 'int32' | 'int64' | 'bytes';

/** What one field (or a map's value) holds. */
export interface ValueDesc {
  readonly scalar?: Scalar;
  readonly special?: Special;
  /** Set for messages (specials included). */
  readonly message?: MessageDesc;
}

export interface FieldDesc extends ValueDesc {
  readonly id: number;
  readonly name: string;
  /** 0 (varint) or 2 (length-delimited): the wire type of one value. */
  readonly wire: 0 | 2;
  readonly repeated: boolean;
  /** A map's values (keys are strings in every message here). */
  readonly map?: ValueDesc;
  /** The JSON form keeps a zero value (meta-v1.proto). */
  readonly keepZero: boolean;
  /** An embedded struct whose fields are the parent's in JSON (meta-v1.proto). */
  readonly inline: boolean;
}

export interface MessageDesc {
  /** The short name, as Go's decoding errors name a message. */
  readonly name: string;
  /** In field number order, as Go writes them. */
  readonly fields: readonly FieldDesc[];
  readonly byId: ReadonlyMap<number, FieldDesc>;
}

const SCALARS: ReadonlySet<string> = new Set(['string', 'bool', 'int32', 'int64', 'bytes']);

let parsed: Root | undefined;

/** The parsed .proto files: read on the first protobuf body, never for requests in JSON. */
function root(): Root {
  if (!parsed) {
    const r = new (protobuf().Root)();
    const dir = protoDir();
    r.loadSync(PROTO_FILES.map((f) => `${dir}${f}`), { keepCase: true });
    r.resolveAll();
    parsed = r;
  }
  return parsed;
}

/** Whether the .proto files have been read (they are, once, on first use). */
export function protoFilesLoaded(): boolean {
  return parsed !== undefined;
}

const compiled = new Map<Type, MessageDesc>();

function valueOf(type: string, resolved: Type | null | undefined): ValueDesc {
  if (SCALARS.has(type)) return { scalar: type as Scalar };
  if (!resolved) throw new Error(`protobuf: unsupported field type ${type}`);
  return { special: SPECIALS.get(resolved.fullName.slice(1)), message: compile(resolved) };
}

/** Compiles a message and all it holds; one already being compiled is returned as it stands (cycles). */
function compile(type: Type): MessageDesc {
  let desc = compiled.get(type);
  if (desc) return desc;
  const fields: FieldDesc[] = [];
  const byId = new Map<number, FieldDesc>();
  desc = { name: type.name, fields, byId };
  compiled.set(type, desc);
  for (const f of [...type.fieldsArray].sort((a, b) => a.id - b.id)) {
    const opts = (f as Field).options ?? {};
    const isMap = (f as unknown as MapField).map === true;
    const value = valueOf(f.type, f.resolvedType as Type | null);
    const fd: FieldDesc = {
      id: f.id,
      name: f.name,
      wire: isMap || value.message || value.special || value.scalar === 'string' || value.scalar === 'bytes' ? 2 : 0,
      repeated: f.repeated,
      keepZero: opts['(keep_zero)'] === true,
      inline: opts['(inline)'] === true,
      ...(isMap ? { map: value } : value),
    };
    fields.push(fd);
    byId.set(fd.id, fd);
  }
  return desc;
}

const byName = new Map<string, MessageDesc>();

/** The compiled message of a fully qualified name (`k8s.io.api.core.v1.Pod`). */
export function message(fullName: string): MessageDesc {
  let desc = byName.get(fullName);
  if (!desc) byName.set(fullName, (desc = compile(root().lookupType(fullName))));
  return desc;
}
