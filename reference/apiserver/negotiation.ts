// Content negotiation for request bodies (Content-Type) and responses (Accept), following the
// rules of upstream k8s.io/apiserver/pkg/endpoints/handlers/negotiation.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { parseJson, parseYaml } from './body-bounds.js';
import { badRequest, notAcceptable, requestEntityTooLarge, unsupportedMediaType, type StatusError } from './errors.js';
import { isPlainObject } from './schema.js';
import { parseMediaParams } from '../media-params.js';
import { acceptedConversion, type Conversion } from './table/media.js';
import { PROTOBUF_MEDIA_TYPE, PROTOBUF_STREAM_MEDIA_TYPE } from './protobuf/kinds.js';
import { decodeObject, type TypeMeta } from './protobuf/codec.js';

/** `protobuf`: application/vnd.kubernetes.protobuf, for the kinds protobuf/kinds.ts names. */
export type BodyFormat = 'json' | 'yaml' | 'protobuf';

export interface OutputFormat {
  readonly type: BodyFormat;
  readonly pretty: boolean;
  /** A Table or PartialObjectMetadata the client asked for with `as=` (table/media.ts); reads only. */
  readonly convert?: Conversion;
}

/**
 * Compact JSON of the object itself: the one format a GET may answer from the stored object's
 * remembered text (store.getJson). Any conversion or other encoding an OutputFormat can name must
 * make this false.
 */
export function isPlainJson(out: OutputFormat): boolean {
  return out.type === 'json' && !out.pretty && !out.convert;
}

export const INPUT_MEDIA_TYPES = ['application/json', 'application/yaml'] as const;
export const OUTPUT_MEDIA_TYPES = ['application/json', 'application/yaml'] as const;
export const STREAM_MEDIA_TYPES = ['application/json', 'application/json;stream=watch'] as const;

/** Upstream's limit on request bodies. */
export const MAX_BODY_BYTES = 3 * 1024 * 1024;

interface MediaRange {
  type: string;
  subtype: string;
  params: Map<string, string>;
  q: number;
  index: number;
}

function parseMediaRange(text: string, index: number): MediaRange | undefined {
  const parts = text.split(';');
  const full = parts[0]!.trim().toLowerCase();
  const slash = full.indexOf('/');
  if (slash <= 0 || slash === full.length - 1) return undefined;
  const { params, q } = parseMediaParams(parts.slice(1));
  return { type: full.slice(0, slash), subtype: full.slice(slash + 1), params: new Map(Object.entries(params)), q, index };
}

/**
 * Picks the response format for an Accept header, or undefined when nothing acceptable is offered.
 * Ranges asking for a conversion (`as=Table`, `as=APIGroupDiscoveryList`, ...) are served only where
 * `conversions` allows (reads of resources) and only those table/media.ts knows; others are skipped
 * in favour of the client's next range (kubectl always sends a plain fallback).
 */
export function negotiateOutput(
  accept: string | undefined,
  opts: { stream?: boolean; conversions?: boolean; protobuf?: boolean } = {},
): OutputFormat | undefined {
  if (!accept || !accept.trim()) return { type: 'json', pretty: false };
  const ranges: MediaRange[] = [];
  accept.split(',').forEach((text, i) => {
    const r = parseMediaRange(text, i);
    if (r && r.q > 0) ranges.push(r);
  });
  ranges.sort((a, b) => b.q - a.q || a.index - b.index);
  for (const r of ranges) {
    if (r.params.has('as')) {
      const converted = opts.conversions ? acceptedConversion(r.type, r.subtype, r.params, !!opts.stream) : undefined;
      if (converted) return { ...converted, pretty: r.params.get('pretty') === '1' };
      continue;
    }
    const stream = r.params.get('stream');
    if (stream !== undefined && (stream !== 'watch' || !opts.stream)) continue;
    const pretty = r.params.get('pretty') === '1';
    if (r.type === '*' && r.subtype === '*') return { type: 'json', pretty };
    if (r.type !== 'application') continue;
    if (r.subtype === '*' || r.subtype === 'json') return { type: 'json', pretty };
    if (r.subtype === 'yaml' && !opts.stream) return { type: 'yaml', pretty };
    // Only where the kind has messages (`protobuf`); elsewhere the client's next choice is taken.
    if (r.subtype === PROTOBUF_SUBTYPE && opts.protobuf) return { type: 'protobuf', pretty: false };
  }
  return undefined;
}

const PROTOBUF_SUBTYPE = PROTOBUF_MEDIA_TYPE.slice('application/'.length);

/** The 406 of an endpoint; `protobuf`: its kind speaks protobuf too, and the list says so. */
export function notAcceptableFor(stream: boolean, protobuf = false): StatusError {
  if (protobuf) return notAcceptable(stream ? [...STREAM_MEDIA_TYPES, PROTOBUF_MEDIA_TYPE, PROTOBUF_STREAM_MEDIA_TYPE] : [...OUTPUT_MEDIA_TYPES, PROTOBUF_MEDIA_TYPE]);
  return notAcceptable(stream ? STREAM_MEDIA_TYPES : OUTPUT_MEDIA_TYPES);
}

/**
 * The body format named by Content-Type; missing means JSON, as upstream. Protobuf only where the
 * body's kind has a message (`protobuf`).
 */
export function inputFormat(contentType: string | undefined, protobuf = false): BodyFormat {
  if (!contentType || !contentType.trim()) return 'json';
  const mt = contentType.split(';')[0]!.trim().toLowerCase();
  if (mt === 'application/json') return 'json';
  if (mt === 'application/yaml') return 'yaml';
  if (protobuf) {
    if (mt === PROTOBUF_MEDIA_TYPE) return 'protobuf';
    throw unsupportedMediaType([...INPUT_MEDIA_TYPES, PROTOBUF_MEDIA_TYPE]);
  }
  throw unsupportedMediaType(INPUT_MEDIA_TYPES);
}

/**
 * Past the limit the rest of a body is read and thrown away, up to this many bytes, so that the
 * client (still sending) gets to read the 413 instead of a connection reset. Beyond it the
 * connection is closed.
 */
const DISCARD_LIMIT = 32 * 1024 * 1024;

/**
 * Reads the request body, refusing more than `limit` bytes without buffering past it. A declared
 * Content-Length over the limit is refused before anything is read.
 */
export function readBody(req: IncomingMessage, res: ServerResponse, limit = MAX_BODY_BYTES): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) {
    discardRest(req, res, 0, declared);
    return Promise.reject(requestEntityTooLarge(limit));
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const finish = (err: Error | undefined, body?: Buffer): void => {
      if (settled) return;
      settled = true;
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('close', onClose);
      if (err) reject(err);
      else resolve(body!);
    };
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > limit) {
        chunks.length = 0;
        finish(requestEntityTooLarge(limit));
        discardRest(req, res, size, size);
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = (): void => finish(undefined, chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
    const onError = (err: Error): void => finish(err);
    const onClose = (): void => finish(new Error('client closed the request before sending the whole body'));
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('close', onClose);
  });
}

function discardRest(req: IncomingMessage, res: ServerResponse, seen: number, expected: number): void {
  if (expected > DISCARD_LIMIT) {
    // Not worth reading: answer and hang up.
    res.setHeader('Connection', 'close');
    req.once('error', () => {});
    return;
  }
  let total = seen;
  req.on('data', (chunk: Buffer) => {
    total += chunk.length;
    if (total > DISCARD_LIMIT) req.socket.destroy();
  });
  req.once('error', () => {});
  req.resume();
}

const GO_TYPE: Record<string, string> = { string: 'string', number: 'number', boolean: 'bool', object: 'array' };

/**
 * Parses a body into a JSON object; anything else is a 400 like upstream's decode errors. A
 * protobuf body is decoded as the kind its envelope names, `expect` filling in what it leaves
 * empty (protobuf/codec.ts).
 */
export function parseObjectBody(raw: Buffer, format: BodyFormat, expect?: TypeMeta): Record<string, unknown> {
  if (format === 'protobuf') return decodeObject(raw, expect ?? { apiVersion: '', kind: '' });
  const text = raw.toString('utf8');
  let value: unknown;
  if (format === 'json') {
    try {
      value = parseJson(text);
    } catch (err) {
      throw badRequest(`couldn't get version/kind; json parse error: ${(err as Error).message}`);
    }
  } else {
    try {
      // Through JSON so the result holds only JSON values (no YAML-only types). Duplicate keys: the
      // last wins, as upstream decodes YAML; fieldValidation reports them (field-validation.ts).
      value = JSON.parse(JSON.stringify(parseYaml(text) ?? null));
    } catch (err) {
      throw badRequest(`couldn't get version/kind; yaml parse error: ${(err as Error).message.split('\n')[0]}`);
    }
  }
  if (!isPlainObject(value)) {
    if (value === null) throw badRequest("Object 'Kind' is missing in 'null'");
    throw badRequest(
      `couldn't get version/kind; json parse error: json: cannot unmarshal ${GO_TYPE[typeof value] ?? typeof value} into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }`,
    );
  }
  return value;
}
