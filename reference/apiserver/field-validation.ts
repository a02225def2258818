// Server-side field validation (the `fieldValidation` write parameter, upstream's strict decoding):
// unknown and duplicate fields in POST, PUT and PATCH bodies are dropped silently (Ignore), reported
// in Warning headers (Warn, the default) or refused (Strict). Problems are found by walking the
// body as written (raw-json.ts keeps duplicate keys) against the resource's schema, and read like
// upstream's: `unknown field "spec.foo"`, `duplicate field "metadata.labels.a"`, in document order.
import { badRequest, invalid, type StatusError } from './errors.js';
import { fieldErrors, type FieldError } from './field-errors.js';
import type { BodyFormat } from './negotiation.js';
import { checkJson } from './body-bounds.js';
import { parseRawJson, parseRawYaml, type RawNode } from './raw-json.js';
import { objectMetaSchema, t, type Properties, type Schema } from './schema.js';
import type { ResolvedStrategy } from './strategy.js';

export type FieldValidationDirective = 'Ignore' | 'Warn' | 'Strict';

/** What upstream's ValidateFieldValidation accepts (sorted, as its message lists them). */
export const FIELD_VALIDATION_VALUES = ['', 'Ignore', 'Strict', 'Warn'] as const;

/** Upstream keeps at most this many strict-decoding errors per body. */
const MAX_PROBLEMS = 100;

/** The `fieldValidation` parameter's field errors (for CreateOptions, UpdateOptions, PatchOptions). */
export function fieldValidationErrors(q: URLSearchParams): FieldError[] {
  const v = q.get('fieldValidation');
  if (v === null || (FIELD_VALIDATION_VALUES as readonly string[]).includes(v)) return [];
  return [fieldErrors.notSupported('fieldValidation', v, FIELD_VALIDATION_VALUES)];
}

/** The directive a request asked for; unset or empty means Warn (the default since v1.23). */
export function fieldValidationDirective(q: URLSearchParams): FieldValidationDirective {
  const v = q.get('fieldValidation');
  return v === 'Ignore' || v === 'Strict' ? v : 'Warn';
}

/** The fields a body of the resource may carry: type meta, metadata and the kind's own. */
export function bodyProperties(s: ResolvedStrategy): Properties {
  return { apiVersion: t.string(), kind: t.string(), metadata: objectMetaSchema, ...s.schema };
}

/** A view of a tree the walk can read: a RawNode (duplicates kept) or a plain JSON value. */
interface Tree<T> {
  entries(v: T): ReadonlyArray<readonly [string, T]> | undefined;
  items(v: T): readonly T[] | undefined;
  isNull(v: T): boolean;
}

const RAW: Tree<RawNode> = {
  entries: (v) => (v.kind === 'object' ? v.entries : undefined),
  items: (v) => (v.kind === 'array' ? v.items : undefined),
  isNull: (v) => v.kind === 'scalar' && v.null,
};

const VALUE: Tree<unknown> = {
  entries: (v) => (typeof v === 'object' && v !== null && !Array.isArray(v) ? Object.entries(v) : undefined),
  items: (v) => (Array.isArray(v) ? v : undefined),
  isNull: (v) => v === null || v === undefined,
};

class Problems {
  readonly list: string[] = [];
  private readonly seen = new Set<string>();

  add(kind: 'unknown' | 'duplicate', path: string): void {
    const msg = `${kind} field ${goQuote(path)}`;
    if (this.list.length >= MAX_PROBLEMS || this.seen.has(msg)) return;
    this.seen.add(msg);
    this.list.push(msg);
  }
}

const join = (path: string, key: string): string => (path ? `${path}.${key}` : key);

/** One container being walked: its children, how far the walk got, and its schema. */
interface Frame<T> {
  readonly schema: Schema;
  readonly path: string;
  readonly entries?: ReadonlyArray<readonly [string, T]>;
  readonly items?: readonly T[];
  readonly seen: Set<string>;
  next: number;
}

/**
 * Unknown and duplicate fields of `root` against `schema`, as upstream's strict JSON decoder finds
 * them, depth first in document order: an unknown key is reported and not looked into; a repeated
 * known key (or map key) is a duplicate; free-form values are searched for duplicate keys only.
 * Values whose type does not match the schema are left to the schema walk (they are field errors,
 * not strict errors). Iterative: free-form values may nest deeply.
 */
function walk<T>(tree: Tree<T>, root: T, schema: Schema, rootPath: string, out: Problems): void {
  const stack: Array<Frame<T>> = [];
  const enter = (v: T, s: Schema, path: string): void => {
    switch (s.type) {
      case 'object':
      case 'map': {
        const entries = tree.entries(v);
        if (entries) stack.push({ schema: s, path, entries, seen: new Set(), next: 0 });
        break;
      }
      case 'array': {
        const items = tree.items(v);
        if (items) stack.push({ schema: s, path, items, seen: new Set(), next: 0 });
        break;
      }
      case 'any': {
        const entries = tree.entries(v);
        const items = entries ? undefined : tree.items(v);
        if (entries || items) stack.push({ schema: s, path, entries, items, seen: new Set(), next: 0 });
        break;
      }
      default:
        break;
    }
  };
  enter(root, schema, rootPath);
  while (stack.length) {
    const f = stack[stack.length - 1]!;
    const s = f.schema;
    if (f.entries) {
      if (f.next >= f.entries.length) {
        stack.pop();
        continue;
      }
      const [k, child] = f.entries[f.next++]!;
      const p = join(f.path, k);
      const cs =
        s.type === 'map' ? s.values
        : s.type === 'any' ? s
        : s.type === 'object' && Object.prototype.hasOwnProperty.call(s.properties, k) ? s.properties[k]
        : undefined;
      if (!cs) {
        out.add('unknown', p);
        continue;
      }
      if (f.seen.has(k)) out.add('duplicate', p);
      else f.seen.add(k);
      if (!tree.isNull(child)) enter(child, cs, p);
    } else if (f.items) {
      if (f.next >= f.items.length) {
        stack.pop();
        continue;
      }
      const i = f.next++;
      const child = f.items[i]!;
      const cs = s.type === 'array' ? s.items : s;
      if (!tree.isNull(child)) enter(child, cs, `${f.path}[${i}]`);
    } else {
      stack.pop();
    }
  }
}

/** Strict-decoding problems of a raw body (duplicates included), in document order. */
export function rawBodyProblems(root: RawNode, properties: Properties): string[] {
  const out = new Problems();
  walk(RAW, root, t.object(properties), '', out);
  return out.list;
}

/** Unknown fields of an in-memory object (a patch result), in its key order. */
export function objectProblems(value: Record<string, unknown>, properties: Properties): string[] {
  const out = new Problems();
  walk(VALUE, value as unknown, t.object(properties), '', out);
  return out.list;
}

/**
 * A copy of `value` without the fields `properties` does not declare, at any depth (free-form
 * values are kept whole): what decoding into the Go types does to a create or update body, done
 * here for apply configurations, which are merged as sent. Recursion follows the schema, which is
 * finite, so a deeply nested body cannot exhaust the stack.
 */
export function dropUnknownFields(value: Record<string, unknown>, properties: Properties): Record<string, unknown> {
  return prune(value, t.object(properties)) as Record<string, unknown>;
}

function prune(v: unknown, s: Schema): unknown {
  if (s.type === 'array') return Array.isArray(v) ? v.map((i) => prune(i, s.items)) : v;
  if ((s.type !== 'object' && s.type !== 'map') || typeof v !== 'object' || v === null || Array.isArray(v)) return v;
  const out: Record<string, unknown> = {};
  for (const [k, child] of Object.entries(v)) {
    const cs = s.type === 'map' ? s.values : Object.prototype.hasOwnProperty.call(s.properties, k) ? s.properties[k] : undefined;
    if (cs) out[k] = prune(child, cs);
  }
  return out;
}

/**
 * The raw tree of a request body in `format`; undefined when it does not parse or is out of
 * bounds (the decoder reports that).
 */
export function rawBody(text: string, format: BodyFormat): RawNode | undefined {
  try {
    if (format === 'yaml') return parseRawYaml(text);
    checkJson(text);
    return parseRawJson(text);
  } catch {
    return undefined;
  }
}

/** The fields of a JSON patch operation (upstream's jsonPatchOp). */
const JSON_PATCH_OPS: Schema = t.array(t.object({ op: t.string(), path: t.string(), from: t.string(), value: t.any() }));

/**
 * Problems in a patch document itself (upstream applyJSPatch and strategicPatchObject): duplicate
 * keys anywhere in a merge or strategic merge patch; in a JSON patch, unknown or duplicate fields
 * of an operation (prefixed `json patch`). `mediaType` is the patch's Content-Type; other types
 * (apply) have none here.
 */
export function patchDocumentProblems(text: string, mediaType: string): string[] {
  const mt = mediaType.split(';')[0]!.trim().toLowerCase();
  const json = mt === 'application/json-patch+json';
  if (!json && mt !== 'application/merge-patch+json' && mt !== 'application/strategic-merge-patch+json') return [];
  const root = rawBody(text, 'json');
  if (!root) return [];
  const out = new Problems();
  if (json) {
    walk(RAW, root, JSON_PATCH_OPS, '', out);
    return out.list.map((p) => `json patch ${p}`);
  }
  walk(RAW, root, t.any(), '', out);
  return out.list;
}

/** The strict decoding error upstream's decoder returns: all problems, comma separated. */
export function strictDecodingError(problems: readonly string[]): string {
  return `strict decoding error: ${problems.join(', ')}`;
}

/** Strict create/update: 400 `<Kind> in version "<v>" cannot be handled as a <Kind>: strict decoding error: ...`. */
export function strictBodyError(s: ResolvedStrategy, problems: readonly string[]): StatusError {
  return badRequest(`${s.kind} in version ${goQuote(s.version)} cannot be handled as a ${s.kind}: ${strictDecodingError(problems)}`);
}

/** Strict patch: 422 ` "" is invalid: patch: Invalid value: "<patched object>": strict decoding error: ...`. */
export function strictPatchError(patched: string, problems: readonly string[]): StatusError {
  return invalid({ group: '', kind: '' }, '', [fieldErrors.invalid('patch', patched, strictDecodingError(problems))]);
}

/**
 * Warning header values, one per problem: `299 - "unknown field \"spec.foo\""`. The text is sent
 * as UTF-8 bytes (Node writes header strings as latin1, so the bytes are spelled out that way).
 */
export function warningHeaderValues(problems: readonly string[]): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const p of problems) {
    if (seen.has(p)) continue;
    seen.add(p);
    const quoted = `"${p.replace(/["\\]/g, (c) => `\\${c}`)}"`;
    out.push(Buffer.from(`299 - ${quoted}`, 'utf8').toString('latin1'));
  }
  return out;
}

/**
 * Go's strconv.Quote for the strings that appear in these messages: quotes and backslashes
 * escaped, control characters spelled as escapes, printable text kept.
 */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    switch (ch) {
      case '"':
        out += '\\"';
        continue;
      case '\\':
        out += '\\\\';
        continue;
      case '\x07':
        out += '\\a';
        continue;
      case '\b':
        out += '\\b';
        continue;
      case '\f':
        out += '\\f';
        continue;
      case '\n':
        out += '\\n';
        continue;
      case '\r':
        out += '\\r';
        continue;
      case '\t':
        out += '\\t';
        continue;
      case '\v':
        out += '\\v';
        continue;
    }
    if (c < 0x20 || c === 0x7f) out += `\\x${c.toString(16).padStart(2, '0')}`;
    else if ((c >= 0x80 && c < 0xa0) || (c >= 0xd800 && c < 0xe000)) out += `\\u${c.toString(16).padStart(4, '0')}`;
    else out += ch;
  }
  return out + '"';
}

/**
 * One write request's field validation: created from its query (after the options were
 * validated), fed the body (create, update) or the patch and its result (patch), it refuses under
 * Strict and gives the Warning headers under Warn.
 */
export class FieldValidator {
  readonly directive: FieldValidationDirective;
  private readonly properties: Properties;
  private bodyProblems: string[] = [];
  private patchProblems: string[] = [];

  constructor(
    q: URLSearchParams,
    private readonly strategy: ResolvedStrategy,
  ) {
    this.directive = fieldValidationDirective(q);
    this.properties = bodyProperties(strategy);
  }

  /** Create and update: checks the body as sent. Throws the strict decoding error under Strict. */
  checkBody(raw: Buffer | string, format: BodyFormat): void {
    // Protobuf bodies have no unknown or duplicate fields to report: the decoder skips fields it
    // does not know, and upstream's strict decoding does not cover protobuf either.
    if (this.directive === 'Ignore' || format === 'protobuf') return;
    const root = rawBody(typeof raw === 'string' ? raw : raw.toString('utf8'), format);
    this.bodyProblems = root ? rawBodyProblems(root, this.properties) : [];
    if (this.directive === 'Strict' && this.bodyProblems.length) throw strictBodyError(this.strategy, this.bodyProblems);
  }

  /** Patch: looks for duplicate fields in the patch document (once, before it is applied). */
  checkPatchDocument(raw: string, mediaType: string): void {
    if (this.directive === 'Ignore') return;
    this.patchProblems = patchDocumentProblems(raw, mediaType);
  }

  /**
   * Patch: checks the patched object for unknown fields (on every attempt). Under Strict any
   * problem, in the patch or the result, fails the patch with 422 as upstream does.
   */
  checkPatched(patched: Record<string, unknown>, shown: string = JSON.stringify(patched)): void {
    if (this.directive === 'Ignore') return;
    this.bodyProblems = objectProblems(patched, this.properties);
    const all = [...this.patchProblems, ...this.bodyProblems];
    if (this.directive === 'Strict' && all.length) throw strictPatchError(shown, all);
  }

  /**
   * Server-side apply: checks the configuration as sent (YAML or JSON, duplicates kept). The spec
   * puts PATCH bodies under fieldValidation, so an apply is treated like a create: Strict refuses
   * with 400 naming every problem, Warn reports them, Ignore says nothing; the unknown fields
   * themselves are then dropped (dropUnknownFields) before the merge.
   */
  checkApplyBody(raw: string): void {
    if (this.directive === 'Ignore') return;
    const root = rawBody(raw, 'yaml');
    this.bodyProblems = root ? rawBodyProblems(root, this.properties) : [];
    if (this.directive === 'Strict' && this.bodyProblems.length) throw badRequest(`error strict decoding YAML: ${strictDecodingError(this.bodyProblems)}`);
  }

  /** Every problem found, in the order upstream reports them. */
  get problems(): string[] {
    return [...this.patchProblems, ...this.bodyProblems];
  }

  /** Headers for a successful response: a Warning per problem under Warn, nothing otherwise. */
  warningHeaders(): Record<string, string[]> | undefined {
    if (this.directive !== 'Warn') return undefined;
    const problems = this.problems;
    return problems.length ? { Warning: warningHeaderValues(problems) } : undefined;
  }
}
