// The pod info service's field mask (spec 001 §4.2): a google.protobuf.FieldMask given in gRPC
// metadata, key `x-orch-fieldmask`, its paths comma-joined. Paths name fields of the pod's JSON, as the
// reference's Pod schema declares them (apiVersion, kind, metadata, spec, status and below). As in a
// FieldMask, a path descends only through objects: a list, a map or a value ends it; below a field the
// schema keeps free-form (affinity, a container status) any name goes.
import { objectMetaSchema, t, type Schema } from '../../apiserver/schema.js';
import { podStrategy } from '../../resources/pod.js';
import { broken } from '../breaks.js';

export class FieldMaskError extends Error {
  override name = 'FieldMaskError';
}

const POD_SCHEMA: Schema = t.object({ apiVersion: t.string(), kind: t.string(), metadata: objectMetaSchema, ...podStrategy.schema });

/** Bounds that keep a hostile mask cheap: its text and how many paths it names. */
export const MAX_MASK_CHARS = 8192;
export const MAX_MASK_PATHS = 256;

const SEGMENT = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** Names that would reach an object's prototype when the masked pod is built. */
const RESERVED = new Set(['__proto__', 'constructor', 'prototype']);

const quote = (s: string) => JSON.stringify(s.length > 100 ? `${s.slice(0, 100)}…` : s);

function kindOf(s: Schema): string {
  return s.type === 'array' ? 'a list' : s.type === 'map' ? 'a map' : 'a value';
}

/** Throws FieldMaskError unless `path` names a field of Pod. */
export function checkPath(path: string): void {
  if (path === '') throw new FieldMaskError('invalid field mask: empty path');
  const segments = path.split('.');
  if (segments.some((s) => !SEGMENT.test(s) || RESERVED.has(s))) throw new FieldMaskError(`invalid field mask: malformed path ${quote(path)}`);
  let node: Schema = POD_SCHEMA;
  for (let i = 0; i < segments.length; i++) {
    if (node.type === 'any') return;
    const at = segments.slice(0, i).join('.') || 'Pod';
    if (node.type !== 'object') throw new FieldMaskError(`invalid field mask: path ${quote(path)}: ${at} is ${kindOf(node)}, so the path must end there`);
    const next: Schema | undefined = Object.hasOwn(node.properties, segments[i]!) ? node.properties[segments[i]!] : undefined;
    if (!next) throw new FieldMaskError(`invalid field mask: path ${quote(path)}: ${at} has no field ${quote(segments[i]!)}`);
    node = next;
  }
}

/**
 * The mask's paths from the values of its metadata key; undefined when there is none (the whole pod).
 * Throws FieldMaskError for more than one value or a bad path.
 *
 * More than one value: Node's HTTP/2 layer joins repeated header fields with ", " before grpc-js
 * hands them over, so two values arrive as one "a, b". The key's format is comma-joined paths without
 * spaces, so ", " is read as a second value.
 */
export function fieldMaskOf(values: readonly (string | Buffer)[]): string[] | undefined {
  if (values.length === 0) return undefined;
  const texts = values.map((v) => (typeof v === 'string' ? v : v.toString('utf8')));
  // Test-only (breaks.ts): repeated masks are taken as one, their paths joined.
  const lenient = broken('podinfo-mask-multiple-joined');
  if (!lenient && (texts.length > 1 || texts[0]!.includes(', '))) throw new FieldMaskError('multiple field masks not supported');
  const text = lenient ? texts.join(',').replace(/, /g, ',') : texts[0]!;
  if (text.length > MAX_MASK_CHARS) throw new FieldMaskError(`invalid field mask: longer than ${MAX_MASK_CHARS} characters`);
  const paths = text.split(',');
  if (paths.length > MAX_MASK_PATHS) throw new FieldMaskError(`invalid field mask: more than ${MAX_MASK_PATHS} paths`);
  for (const p of paths) {
    try {
      checkPath(p);
    } catch (err) {
      // Test-only (breaks.ts): paths naming no field of Pod are accepted (they select nothing).
      if (broken('podinfo-mask-unchecked') && err instanceof FieldMaskError && !err.message.includes('malformed')) continue;
      throw err;
    }
  }
  return paths;
}

type Json = Record<string, unknown>;

/**
 * The pod with only the fields the paths name (and the objects that lead to them); a path the pod
 * has no value at adds nothing. Objects of the result have no prototype, so no path reaches one.
 */
export function applyFieldMask(pod: Json, paths: readonly string[]): Json {
  // Shortest first: a path under one already taken adds nothing, and nothing is written into a value
  // shared with the pod.
  const sorted = [...new Set(paths)].map((p) => p.split('.')).sort((a, b) => a.length - b.length);
  const taken: string[][] = [];
  const out: Json = Object.create(null);
  for (const segs of sorted) {
    if (taken.some((t) => t.every((s, i) => segs[i] === s))) continue;
    taken.push(segs);
    // Test-only (breaks.ts): a path keeps its whole top-level field (status.phase gives all of status).
    const keep = broken('podinfo-mask-top-level') ? segs.slice(0, 1) : segs;
    let src: unknown = pod;
    for (const s of keep) {
      src = src !== null && typeof src === 'object' && !Array.isArray(src) && Object.hasOwn(src, s) ? (src as Json)[s] : undefined;
      if (src === undefined) break;
    }
    if (src === undefined) continue;
    let dst = out;
    for (const s of keep.slice(0, -1)) {
      if (!Object.hasOwn(dst, s)) dst[s] = Object.create(null);
      dst = dst[s] as Json;
    }
    dst[keep[keep.length - 1]!] = src;
  }
  return out;
}
