// JSON objects <-> upstream's protobuf encoding (application/vnd.kubernetes.protobuf).
//
// A body is the magic `k8s\0` and a runtime.Unknown {typeMeta {apiVersion, kind}, raw} whose raw
// bytes are the object's message. Decoding yields the JSON a JSON client would have sent for the
// same Go object: zero values of omitempty fields dropped, zero values of pointer and required
// fields kept ((keep_zero) in the .proto files), embedded structs flattened ((inline)), times as
// RFC 3339 seconds, quantities and int-or-strings as their JSON scalars, managed field sets as
// JSON. Fields the messages do not have are skipped, as upstream skips them. Encoding writes the
// fields an object has, in field number order, map keys sorted, as Go writes them.
//
// Watch streams (application/vnd.kubernetes.protobuf;stream=watch) are frames of a 4-byte
// big-endian length and a bare WatchEvent message (no magic, no envelope), whose object is itself
// an enveloped body.
import type { Reader, Writer } from 'protobufjs';
import { protobuf } from '../../packages.js';
import { badRequest } from '../errors.js';
import { MAX_NODES, parseJson } from '../body-bounds.js';
import { isPlainObject } from '../schema.js';
import { normalizeQuantity } from '../quantity.js';
import { messageFor, UNKNOWN_MESSAGE, WATCH_EVENT_MESSAGE } from './kinds.js';
import { message, type FieldDesc, type MessageDesc, type ValueDesc } from './messages.js';

type Json = Record<string, unknown>;

/** The bytes every enveloped body starts with. */
export const MAGIC = Uint8Array.of(0x6b, 0x38, 0x73, 0x00);

/** A wire-level decoding failure, worded as Go's generated unmarshalers word theirs. */
class WireError extends Error {}

// ---- Encoding ----

const tag = (id: number, wire: number): number => ((id << 3) | wire) >>> 0;

function encodeFields(w: Writer, obj: Json, desc: MessageDesc): void {
  for (const f of desc.fields) {
    if (f.inline) {
      // An embedded Go struct is a value: always written, from the parent's own JSON fields.
      w.uint32(tag(f.id, 2)).fork();
      encodeFields(w, obj, f.message!);
      w.ldelim();
      continue;
    }
    const v = Object.prototype.hasOwnProperty.call(obj, f.name) ? obj[f.name] : undefined;
    if (v === undefined || v === null) continue;
    if (f.map) {
      if (!isPlainObject(v)) continue;
      for (const k of Object.keys(v).sort()) {
        w.uint32(tag(f.id, 2)).fork();
        w.uint32(tag(1, 2)).string(k);
        writeValue(w, 2, f.map, v[k]);
        w.ldelim();
      }
    } else if (f.repeated) {
      if (Array.isArray(v)) for (const item of v) writeValue(w, f.id, f, item ?? (f.message ? {} : undefined));
    } else {
      writeValue(w, f.id, f, v);
    }
  }
}

/** Writes one value; a value whose JSON type does not fit the field is left out (it never decoded upstream). */
function writeValue(w: Writer, id: number, d: ValueDesc, v: unknown): void {
  switch (d.scalar) {
    case 'string':
      if (typeof v === 'string') w.uint32(tag(id, 2)).string(v);
      return;
    case 'bool':
      if (typeof v === 'boolean') w.uint32(tag(id, 0)).bool(v);
      return;
    case 'int32':
      if (Number.isInteger(v) && (v as number) >= -0x80000000 && (v as number) <= 0x7fffffff) w.uint32(tag(id, 0)).int32(v as number);
      return;
    case 'int64':
      if (Number.isSafeInteger(v)) w.uint32(tag(id, 0)).int64(v as number);
      return;
    case 'bytes':
      if (v instanceof Uint8Array) w.uint32(tag(id, 2)).bytes(v);
      return;
  }
  switch (d.special) {
    case 'time': {
      const t = parseTime(v);
      if (t) w.uint32(tag(id, 2)).fork().uint32(tag(1, 0)).int64(t.seconds).uint32(tag(2, 0)).int32(t.nanos).ldelim();
      return;
    }
    case 'quantity': {
      const q = typeof v === 'string' ? v : typeof v === 'number' ? normalizeQuantity(v) : undefined;
      if (q !== undefined) w.uint32(tag(id, 2)).fork().uint32(tag(1, 2)).string(q).ldelim();
      return;
    }
    case 'intOrString':
      // Go writes all three fields: the type (0 int, 1 string) and both values.
      if (Number.isInteger(v)) w.uint32(tag(id, 2)).fork().uint32(tag(1, 0)).int64(0).uint32(tag(2, 0)).int32(v as number).uint32(tag(3, 2)).string('').ldelim();
      else if (typeof v === 'string') w.uint32(tag(id, 2)).fork().uint32(tag(1, 0)).int64(1).uint32(tag(2, 0)).int32(0).uint32(tag(3, 2)).string(v).ldelim();
      return;
    case 'fieldsV1':
      w.uint32(tag(id, 2)).fork().uint32(tag(1, 2)).bytes(Buffer.from(JSON.stringify(v))).ldelim();
      return;
    case 'rawExtension':
      if (v instanceof Uint8Array) w.uint32(tag(id, 2)).fork().uint32(tag(1, 2)).bytes(v).ldelim();
      return;
  }
  if (d.message && isPlainObject(v)) {
    w.uint32(tag(id, 2)).fork();
    encodeFields(w, v, d.message);
    w.ldelim();
  }
}

const RFC3339 = /^(\d{4}-\d{2}-\d{2})[Tt](\d{2}:\d{2}:\d{2})(?:\.(\d+))?([Zz]|[+-]\d{2}:\d{2})$/;

function parseTime(v: unknown): { seconds: number; nanos: number } | undefined {
  if (typeof v !== 'string') return undefined;
  const m = RFC3339.exec(v);
  if (!m) return undefined;
  const ms = Date.parse(`${m[1]}T${m[2]}${m[4]!.toUpperCase()}`);
  if (Number.isNaN(ms)) return undefined;
  return { seconds: Math.floor(ms / 1000), nanos: Number(((m[3] ?? '') + '000000000').slice(0, 9)) };
}

/** A message's bytes for a JSON object. */
function encodeMessage(obj: Json, desc: MessageDesc): Uint8Array {
  const w = protobuf().Writer.create();
  encodeFields(w, obj, desc);
  return w.finish();
}

export interface TypeMeta {
  readonly apiVersion: string;
  readonly kind: string;
}

function typeMetaOf(obj: Json, fallback?: TypeMeta): TypeMeta | undefined {
  const apiVersion = typeof obj['apiVersion'] === 'string' && obj['apiVersion'] ? obj['apiVersion'] : fallback?.apiVersion;
  const kind = typeof obj['kind'] === 'string' && obj['kind'] ? obj['kind'] : fallback?.kind;
  return apiVersion && kind ? { apiVersion, kind } : undefined;
}

/**
 * The enveloped body of an object (its kind from its own apiVersion and kind, else `fallback`),
 * or undefined when that kind has no message: the caller answers in JSON instead.
 */
export function encodeObject(obj: unknown, fallback?: TypeMeta): Buffer | undefined {
  if (!isPlainObject(obj)) return undefined;
  const tm = typeMetaOf(obj, fallback);
  const name = tm && messageFor(tm.apiVersion, tm.kind);
  if (!name) return undefined;
  const raw = encodeMessage(obj, message(name));
  const unknown = encodeMessage({ typeMeta: { apiVersion: tm.apiVersion, kind: tm.kind }, raw, contentEncoding: '', contentType: '' }, message(UNKNOWN_MESSAGE));
  return Buffer.concat([MAGIC, unknown]);
}

/**
 * One frame of a protobuf watch stream. An object without a message (none of the served kinds
 * sends one) is embedded as JSON, which clients recognise by its first byte.
 */
export function encodeWatchFrame(ev: { readonly type: string; readonly object: unknown }, fallback?: TypeMeta): Buffer {
  const object = encodeObject(ev.object, fallback) ?? Buffer.from(JSON.stringify(ev.object));
  const event = encodeMessage({ type: ev.type, object }, message(WATCH_EVENT_MESSAGE));
  const frame = Buffer.allocUnsafe(4 + event.length);
  frame.writeUInt32BE(event.length, 0);
  frame.set(event, 4);
  return frame;
}

// ---- Decoding ----

/**
 * Values (messages, list items, map entries) left to decode in the body being decoded: the bound
 * JSON and YAML bodies have (body-bounds.ts), so that 3 MiB of tiny messages cannot become
 * millions of objects. Decoding is synchronous: one body at a time.
 */
let budget = 0;

function spend(n = 1): void {
  budget -= n;
  if (budget < 0) throw new WireError(`too many values: more than ${MAX_NODES} collections and entries`);
}

/** Collections and entries in a JSON value (what checkJson counts in its text). */
function jsonNodes(v: unknown): number {
  if (typeof v !== 'object' || v === null) return 0;
  const children = Array.isArray(v) ? v : Object.values(v);
  let n = 1 + children.length;
  for (const c of children) n += jsonNodes(c);
  return n;
}

/** Left out of the JSON form: a zero time (Go writes null), an empty managed field set. */
const ABSENT = Symbol('absent');

const toNumber = (v: number | { toNumber(): number }): number => (typeof v === 'number' ? v : v.toNumber());


const isZero = (v: unknown): boolean => v === '' || v === 0 || v === false || (v instanceof Uint8Array && v.length === 0);

/** Sets a key that comes from the data (a map key may be `__proto__`). */
function setKey(obj: Json, k: string, v: unknown): void {
  if (k === '__proto__') Object.defineProperty(obj, k, { value: v, enumerable: true, writable: true, configurable: true });
  else obj[k] = v;
}

const goName = (name: string): string => name.charAt(0).toUpperCase() + name.slice(1);

/** Skips an unknown field of wire type `wire` (groups included, without recursion). */
function skipField(r: Reader, wire: number): void {
  let depth = 0;
  for (;;) {
    switch (wire) {
      case 0:
        r.skip();
        break;
      case 1:
        r.skip(8);
        break;
      case 2:
        r.skip(r.uint32());
        break;
      case 3:
        depth++;
        break;
      case 4:
        if (depth === 0) throw new WireError('proto: unexpected end of group');
        depth--;
        break;
      case 5:
        r.skip(4);
        break;
      default:
        throw new WireError(`proto: illegal wireType ${wire}`);
    }
    if (depth === 0) return;
    wire = r.uint32() & 7;
  }
}

/** The bounds of a length-delimited value starting at the reader. */
function subEnd(r: Reader, end: number): number {
  const len = r.uint32();
  const sub = r.pos + len;
  if (sub > end) throw new WireError('unexpected EOF');
  return sub;
}

function decodeFields(r: Reader, end: number, desc: MessageDesc, out: Json): Json {
  while (r.pos < end) {
    const t = r.uint32();
    const id = t >>> 3;
    const wire = t & 7;
    if (id <= 0) throw new WireError(`proto: ${desc.name}: illegal tag ${id} (wire type ${wire})`);
    if (wire === 4) throw new WireError(`proto: ${desc.name}: wiretype end group for non-group`);
    const f = desc.byId.get(id);
    if (!f) {
      skipField(r, wire);
      continue;
    }
    const packed = f.repeated && f.wire === 0 && wire === 2;
    if (wire !== f.wire && !packed) throw new WireError(`proto: wrong wireType = ${wire} for field ${goName(f.name)}`);
    if (f.map) {
      const [k, v] = readMapEntry(r, end, f);
      const m = isPlainObject(out[f.name]) ? (out[f.name] as Json) : (out[f.name] = {});
      setKey(m, k, v);
    } else if (packed) {
      const sub = subEnd(r, end);
      const list = Array.isArray(out[f.name]) ? (out[f.name] as unknown[]) : (out[f.name] = []);
      while (r.pos < sub) {
        spend();
        list.push(readScalar(r, f));
      }
      if (r.pos !== sub) throw new WireError('unexpected EOF');
    } else if (f.repeated) {
      spend();
      const v = readValue(r, end, f, undefined);
      const list = Array.isArray(out[f.name]) ? (out[f.name] as unknown[]) : (out[f.name] = []);
      list.push(v === ABSENT ? null : v);
    } else if (f.inline) {
      const sub = subEnd(r, end);
      decodeFields(r, sub, f.message!, out);
      if (r.pos !== sub) throw new WireError('unexpected EOF');
    } else {
      const v = readValue(r, end, f, out[f.name]);
      // The last value wins, as in Go: a later zero unsets an earlier value.
      if (v === ABSENT || (f.scalar && !f.keepZero && isZero(v))) delete out[f.name];
      else out[f.name] = v;
    }
  }
  if (r.pos !== end) throw new WireError('unexpected EOF');
  return out;
}

function readScalar(r: Reader, d: ValueDesc): unknown {
  switch (d.scalar) {
    case 'string':
      return r.string();
    case 'bool':
      return r.bool();
    case 'int32':
      return r.int32();
    case 'int64':
      return toNumber(r.int64() as unknown as number | { toNumber(): number });
    default:
      return r.bytes();
  }
}

/** A value; a singular message merges into `prior` (what an earlier occurrence decoded), as Go's do. */
function readValue(r: Reader, end: number, d: ValueDesc, prior: unknown): unknown {
  if (d.scalar) return readScalar(r, d);
  spend();
  const sub = subEnd(r, end);
  const empty = r.pos === sub;
  const fields = decodeFields(r, sub, d.message!, !d.special && isPlainObject(prior) ? prior : {});
  switch (d.special) {
    case 'time':
      // Go reads an empty Time as the zero time (written as null) and drops the nanoseconds.
      return empty ? ABSENT : formatTime(typeof fields['seconds'] === 'number' ? fields['seconds'] : 0);
    case 'quantity':
      return typeof fields['string'] === 'string' ? fields['string'] : '0';
    case 'intOrString':
      return fields['type'] === 1 ? (fields['strVal'] ?? '') : (fields['intVal'] ?? 0);
    case 'fieldsV1': {
      const raw = fields['Raw'];
      if (!(raw instanceof Uint8Array) || raw.length === 0) return ABSENT;
      let set: unknown;
      try {
        set = parseJson(Buffer.from(raw.buffer, raw.byteOffset, raw.length).toString('utf8'));
      } catch (err) {
        throw new WireError(`invalid FieldsV1: ${(err as Error).message}`);
      }
      spend(jsonNodes(set));
      return set;
    }
    case 'rawExtension':
      return fields['raw'] instanceof Uint8Array ? fields['raw'] : new Uint8Array(0);
    default:
      return fields;
  }
}

function readMapEntry(r: Reader, end: number, f: FieldDesc): [string, unknown] {
  spend();
  const sub = subEnd(r, end);
  let key = '';
  let value: unknown;
  while (r.pos < sub) {
    const t = r.uint32();
    const id = t >>> 3;
    const wire = t & 7;
    if (id === 1 && wire === 2) key = r.string();
    else if (id === 2 && wire === 2) value = readValue(r, sub, f.map!, undefined);
    else if (id === 1 || id === 2) throw new WireError(`proto: wrong wireType = ${wire} for field ${goName(f.name)}`);
    else if (wire === 4) throw new WireError(`proto: ${goName(f.name)}Entry: wiretype end group for non-group`);
    else skipField(r, wire);
  }
  if (r.pos !== sub) throw new WireError('unexpected EOF');
  // A missing value is the zero value of its type.
  if (value === undefined || value === ABSENT) value = f.map!.special === 'quantity' ? '0' : f.map!.scalar === 'string' ? '' : {};
  return [key, value];
}

function formatTime(seconds: number): string {
  const d = new Date(seconds * 1000);
  const year = d.getUTCFullYear();
  if (Number.isNaN(year) || year < 0 || year > 9999) throw new WireError('Time.MarshalJSON: year outside of range [0,9999]');
  return `${d.toISOString().slice(0, 19)}Z`;
}

/** Decodes a message, mapping the protobufjs reader's own failures onto Go's words. */
function decodeMessage(bytes: Uint8Array, desc: MessageDesc): Json {
  budget = MAX_NODES;
  try {
    const r = protobuf().Reader.create(bytes);
    return decodeFields(r, bytes.length, desc, {});
  } catch (err) {
    if (err instanceof WireError) throw err;
    // protobufjs: RangeError "index out of range" when a value runs past the end; "invalid
    // varint encoding" for a varint over 10 bytes.
    const msg = (err as Error).message ?? '';
    if (/varint/.test(msg)) throw new WireError('proto: integer overflow');
    if (err instanceof RangeError || /index out of range/.test(msg)) throw new WireError('unexpected EOF');
    throw new WireError(msg);
  }
}

/** Upstream's summary of an undecodable body in its error message: hex, the first 30 bytes. */
function summarize(body: Uint8Array): string {
  if (body.length === 0) return '<empty>';
  const head = Buffer.from(body.buffer, body.byteOffset, Math.min(body.length, 30));
  const text = body[0] === 0x7b ? head.toString('utf8') : head.toString('hex');
  return body.length > 30 ? `${text} ...` : text;
}

const versionOf = (apiVersion: string): string => apiVersion.slice(apiVersion.indexOf('/') + 1);

/**
 * The JSON object of an enveloped body sent to an endpoint expecting `expect`: apiVersion and kind
 * from the envelope (defaulted to the expected ones when empty, as upstream), then the fields of
 * the object. A kind without a message yields only its apiVersion and kind: the caller's type
 * check refuses it. Malformed bodies are 400s worded as upstream's decoding errors.
 */
export function decodeObject(body: Uint8Array, expect: TypeMeta): Json {
  const unrecognized = (why: string) => badRequest(`the object provided is unrecognized (must be of type ${expect.kind}): ${why} (${summarize(body)})`);
  if (body.length === 0) throw unrecognized('empty data');
  if (body.length < MAGIC.length || MAGIC.some((b, i) => body[i] !== b)) {
    throw unrecognized(`provided data does not appear to be a protobuf message, expected prefix [${MAGIC.join(' ')}]`);
  }
  if (body.length === MAGIC.length) throw unrecognized('empty body');
  let unknown: Json;
  try {
    unknown = decodeMessage(body.subarray(MAGIC.length), message(UNKNOWN_MESSAGE));
  } catch (err) {
    throw unrecognized((err as Error).message);
  }
  const tm = isPlainObject(unknown['typeMeta']) ? unknown['typeMeta'] : {};
  const apiVersion = typeof tm['apiVersion'] === 'string' && tm['apiVersion'] ? tm['apiVersion'] : expect.apiVersion;
  const kind = typeof tm['kind'] === 'string' && tm['kind'] ? tm['kind'] : expect.kind;
  const name = messageFor(apiVersion, kind);
  if (!name) {
    if (apiVersion === expect.apiVersion && kind === expect.kind) {
      throw badRequest(`${kind} in version "${versionOf(apiVersion)}" cannot be handled as a ${expect.kind}: no kind "${kind}" is registered for version "${apiVersion}"`);
    }
    return { apiVersion, kind };
  }
  const raw = unknown['raw'] instanceof Uint8Array ? unknown['raw'] : new Uint8Array(0);
  try {
    return { apiVersion, kind, ...decodeMessage(raw, message(name)) };
  } catch (err) {
    throw badRequest(`${kind} in version "${versionOf(apiVersion)}" cannot be handled as a ${expect.kind}: ${(err as Error).message}`);
  }
}

/** The events of a protobuf watch stream's bytes (whole frames; a partial last frame is an error). */
export function decodeWatchFrames(stream: Uint8Array, expect: TypeMeta): Array<{ type: string; object: Json }> {
  const events: Array<{ type: string; object: Json }> = [];
  const view = Buffer.from(stream.buffer, stream.byteOffset, stream.length);
  let pos = 0;
  while (pos < view.length) {
    if (pos + 4 > view.length) throw new Error('truncated watch frame');
    const len = view.readUInt32BE(pos);
    if (pos + 4 + len > view.length) throw new Error('truncated watch frame');
    const ev = decodeMessage(view.subarray(pos + 4, pos + 4 + len), message(WATCH_EVENT_MESSAGE));
    const raw = ev['object'] instanceof Uint8Array ? ev['object'] : new Uint8Array(0);
    events.push({ type: String(ev['type'] ?? ''), object: decodeObject(raw, expect) });
    pos += 4 + len;
  }
  return events;
}
