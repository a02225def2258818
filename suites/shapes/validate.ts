// Checks returned objects against a kind's JSON Schema with ajv, and words what is wrong as the shared
// verifier does: the JSON path of each violation, the type expected there, the JSON type and value
// found. Validators are compiled once per process and reused for every object.
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { fail, show } from '../verify.js';
import type { JsonSchema } from './json-schema.js';

// allErrors: every violation of an object in one failure. strictTypes off: the `upstream` part
// reaches its places through nodes that deliberately carry no type (see json-schema.ts).
const ajv = new Ajv({ allErrors: true, strictTypes: false });
const compiled = new Map<string, ValidateFunction>();

/** The validator of `key`, compiled from `build()` the first time it is asked for. */
export function validatorFor(key: string, build: () => JsonSchema): ValidateFunction {
  let v = compiled.get(key);
  if (!v) {
    v = ajv.compile(build());
    compiled.set(key, v);
  }
  return v;
}

export interface Violation {
  /** `items[0].provisioner`, `metadata.labels["conformance.orch.io/run"]`. */
  readonly path: string;
  readonly expected: string;
  readonly actual: string;
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** A JSON pointer into `root` as a readable path: indexes of arrays in brackets, odd keys quoted. */
export function readablePath(root: unknown, pointer: string, extra?: string): string {
  const keys = pointer === '' ? [] : pointer.slice(1).split('/').map((k) => k.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (extra !== undefined) keys.push(extra);
  let out = '';
  let v: any = root;
  for (const k of keys) {
    if (Array.isArray(v)) out += `[${k}]`;
    else if (IDENTIFIER.test(k)) out += out ? `.${k}` : k;
    else out += `[${JSON.stringify(k)}]`;
    v = v != null && typeof v === 'object' ? v[k] : undefined;
  }
  return out || '(the whole object)';
}

/** The JSON type of a value as JSON Schema names it. */
export function jsonType(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

function valueAt(root: unknown, pointer: string): unknown {
  if (pointer === '') return root;
  let v: any = root;
  for (const k of pointer.slice(1).split('/')) v = v != null && typeof v === 'object' ? v[k.replace(/~1/g, '/').replace(/~0/g, '~')] : undefined;
  return v;
}

function violation(root: unknown, e: ErrorObject): Violation {
  if (e.keyword === 'required') {
    const missing = String((e.params as { missingProperty: string }).missingProperty);
    return { path: readablePath(root, e.instancePath, missing), expected: 'present (required)', actual: 'absent' };
  }
  const value = valueAt(root, e.instancePath);
  const expected = e.keyword === 'type' ? String((e.params as { type: string }).type) : e.message ?? e.keyword;
  return { path: readablePath(root, e.instancePath), expected, actual: value === undefined ? 'absent' : value === null ? 'null' : `${jsonType(value)} ${show(value)}` };
}

/** Every violation of `value` under `validate` (none: the value has the shape). */
export function violations(validate: ValidateFunction, value: unknown): Violation[] {
  if (validate(value)) return [];
  // A `nullable` type reports null twice at most; one line per path and expectation is enough.
  const seen = new Set<string>();
  return (validate.errors ?? []).map((e) => violation(value, e)).filter((v) => {
    const key = `${v.path}\u0000${v.expected}`;
    return seen.has(key) ? false : (seen.add(key), true);
  });
}

/**
 * Fails the case when `value` (what the target returned for `what`) violates the schema: one failure
 * naming every violating path, the types expected there and what was found.
 */
export function expectShape(validate: ValidateFunction, value: unknown, what: string): void {
  const found = violations(validate, value);
  if (found.length === 0) return;
  if (found.length === 1) fail(`${what}: ${found[0]!.path}`, found[0]!.expected, found[0]!.actual);
  fail(
    `${what}: ${found.length} fields of the wrong type or missing: ${found.map((v) => v.path).join(', ')}`,
    found.map((v) => `${v.path}: ${v.expected}`).join('; '),
    found.map((v) => `${v.path}: ${v.actual}`).join('; '),
  );
}
