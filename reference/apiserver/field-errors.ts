// Field-level validation errors and the reusable validators, mirroring upstream's
// k8s.io/apimachinery/pkg/util/validation{,/field} so messages match a real apiserver byte for byte.

export type FieldErrorType =
  | 'FieldValueNotFound'
  | 'FieldValueRequired'
  | 'FieldValueDuplicate'
  | 'FieldValueInvalid'
  | 'FieldValueNotSupported'
  | 'FieldValueForbidden'
  | 'FieldValueTooLong'
  | 'FieldValueTooMany'
  | 'InternalError'
  | 'FieldValueTypeInvalid';

const TYPE_TEXT: Record<FieldErrorType, string> = {
  FieldValueNotFound: 'Not found',
  FieldValueRequired: 'Required value',
  FieldValueDuplicate: 'Duplicate value',
  FieldValueInvalid: 'Invalid value',
  FieldValueNotSupported: 'Unsupported value',
  FieldValueForbidden: 'Forbidden',
  FieldValueTooLong: 'Too long',
  FieldValueTooMany: 'Too many',
  InternalError: 'Internal error',
  FieldValueTypeInvalid: 'Invalid value',
};

/** Marks "print no value" (upstream's omitValue). */
export const OMIT = Symbol('omit');

export interface FieldError {
  readonly type: FieldErrorType;
  readonly field: string;
  readonly badValue?: unknown;
  readonly detail?: string;
}

/** An immutable field path; children share their parent, and the string is built once on demand. */
export class FieldPath {
  private text: string | undefined;
  private constructor(
    private readonly parent: FieldPath | undefined,
    private readonly segment: string,
  ) {}

  static root(name: string): FieldPath {
    return new FieldPath(undefined, name);
  }

  child(name: string): FieldPath {
    return new FieldPath(this, `.${name}`);
  }

  index(i: number): FieldPath {
    return new FieldPath(this, `[${i}]`);
  }

  key(k: string): FieldPath {
    return new FieldPath(this, `[${k}]`);
  }

  toString(): string {
    if (this.text === undefined) {
      this.text = this.parent ? this.parent.toString() + this.segment : this.segment;
    }
    return this.text;
  }
}

export const path = FieldPath.root;

type P = FieldPath | string;
const s = (p: P): string => (typeof p === 'string' ? p : p.toString());

export const fieldErrors = {
  required: (p: P, detail = ''): FieldError => ({ type: 'FieldValueRequired', field: s(p), badValue: '', detail }),
  invalid: (p: P, value: unknown, detail: string): FieldError => ({
    type: 'FieldValueInvalid',
    field: s(p),
    badValue: value,
    detail,
  }),
  typeInvalid: (p: P, value: unknown, detail: string): FieldError => ({
    type: 'FieldValueTypeInvalid',
    field: s(p),
    badValue: value,
    detail,
  }),
  notSupported: (p: P, value: unknown, supported: readonly string[]): FieldError => ({
    type: 'FieldValueNotSupported',
    field: s(p),
    badValue: value,
    detail: supported.length ? 'supported values: ' + supported.map((v) => JSON.stringify(v)).join(', ') : '',
  }),
  forbidden: (p: P, detail: string): FieldError => ({ type: 'FieldValueForbidden', field: s(p), badValue: '', detail }),
  duplicate: (p: P, value: unknown): FieldError => ({ type: 'FieldValueDuplicate', field: s(p), badValue: value }),
  notFound: (p: P, value: unknown): FieldError => ({ type: 'FieldValueNotFound', field: s(p), badValue: value }),
  tooLong: (p: P, value: unknown, maxLength: number): FieldError => ({
    type: 'FieldValueTooLong',
    field: s(p),
    badValue: value,
    detail: maxLength >= 0 ? `may not be more than ${maxLength} ${maxLength === 1 ? 'byte' : 'bytes'}` : 'value is too long',
  }),
  tooMany: (p: P, actual: number, max: number): FieldError => ({
    type: 'FieldValueTooMany',
    field: s(p),
    badValue: actual >= 0 ? actual : OMIT,
    detail: max >= 0 ? `must have at most ${max} items` : 'has too many items',
  }),
  internal: (p: P, err: Error): FieldError => ({ type: 'InternalError', field: s(p), detail: err.message }),
  /** The `field is immutable` error of ValidateImmutableField. */
  immutable: (p: P, value: unknown): FieldError => ({
    type: 'FieldValueInvalid',
    field: s(p),
    badValue: value,
    detail: 'field is immutable',
  }),
};

/** The message without the field (upstream Error.ErrorBody). */
export function errorBody(e: FieldError): string {
  let out = TYPE_TEXT[e.type];
  switch (e.type) {
    case 'FieldValueRequired':
    case 'FieldValueForbidden':
    case 'FieldValueTooLong':
    case 'InternalError':
      break;
    default:
      if (e.badValue !== OMIT) out += ': ' + formatValue(e.badValue);
  }
  if (e.detail) out += ': ' + e.detail;
  return out;
}

/** `field: body`, as upstream Error.Error(). */
export function errorString(e: FieldError): string {
  return `${e.field}: ${errorBody(e)}`;
}

/** Upstream ErrorList.ToAggregate().Error(): duplicates dropped, one bare or several in brackets. */
export function aggregate(errs: readonly FieldError[]): string {
  const seen = new Set<string>();
  const msgs: string[] = [];
  for (const e of errs) {
    const m = errorString(e);
    if (!seen.has(m)) {
      seen.add(m);
      msgs.push(m);
    }
  }
  return msgs.length === 1 ? msgs[0]! : `[${msgs.join(', ')}]`;
}

// Go prints simple values with %v, strings with %q and anything else with %#v; JSON is the
// closest readable rendering of the last case for a JSON API.
function formatValue(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  switch (typeof v) {
    case 'string':
      return JSON.stringify(v);
    case 'number':
    case 'boolean':
    case 'bigint':
      return String(v);
    default:
      try {
        return JSON.stringify(v) ?? String(v);
      } catch {
        return String(v);
      }
  }
}

// ---- Validators (upstream k8s.io/apimachinery/pkg/util/validation) ----

const DNS1123_LABEL_FMT = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const DNS1123_SUBDOMAIN_FMT = `${DNS1123_LABEL_FMT}(\\.${DNS1123_LABEL_FMT})*`;
const QUALIFIED_NAME_FMT = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
const LABEL_VALUE_FMT = `(${QUALIFIED_NAME_FMT})?`;
const DNS1123_LABEL_RE = new RegExp(`^${DNS1123_LABEL_FMT}$`);
const DNS1123_SUBDOMAIN_RE = new RegExp(`^${DNS1123_SUBDOMAIN_FMT}$`);
const QUALIFIED_NAME_RE = new RegExp(`^${QUALIFIED_NAME_FMT}$`);
const LABEL_VALUE_RE = new RegExp(`^${LABEL_VALUE_FMT}$`);
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export const DNS1123_LABEL_MAX = 63;
export const DNS1123_SUBDOMAIN_MAX = 253;
export const QUALIFIED_NAME_MAX = 63;
export const LABEL_VALUE_MAX = 63;
export const TOTAL_ANNOTATION_SIZE_LIMIT = 256 * 1024;

export function regexError(msg: string, fmt: string, ...examples: string[]): string {
  if (examples.length === 0) return `${msg} (regex used for validation is '${fmt}')`;
  // Upstream joins with " or " after a trailing ", ", hence the double space.
  return `${msg} (e.g. ${examples.map((e) => `'${e}', `).join(' or ')}regex used for validation is '${fmt}')`;
}

export const maxLenError = (n: number): string => `must be no more than ${n} characters`;
export const EMPTY_ERROR = 'must be non-empty';

export function isDNS1123Label(value: string): string[] {
  const errs: string[] = [];
  if (value.length > DNS1123_LABEL_MAX) errs.push(maxLenError(DNS1123_LABEL_MAX));
  if (!DNS1123_LABEL_RE.test(value)) {
    errs.push(
      regexError(
        "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character",
        DNS1123_LABEL_FMT,
        'my-name',
        '123-abc',
      ),
    );
  }
  return errs;
}

export function isDNS1123Subdomain(value: string): string[] {
  const errs: string[] = [];
  if (value.length > DNS1123_SUBDOMAIN_MAX) errs.push(maxLenError(DNS1123_SUBDOMAIN_MAX));
  if (!DNS1123_SUBDOMAIN_RE.test(value)) {
    errs.push(
      regexError(
        "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character",
        DNS1123_SUBDOMAIN_FMT,
        'example.com',
      ),
    );
  }
  return errs;
}

const QUALIFIED_NAME_ERR =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";

export function isQualifiedName(value: string): string[] {
  const errs: string[] = [];
  const parts = value.split('/');
  let name: string;
  if (parts.length === 1) {
    name = parts[0]!;
  } else if (parts.length === 2) {
    const prefix = parts[0]!;
    name = parts[1]!;
    if (prefix.length === 0) errs.push('prefix part ' + EMPTY_ERROR);
    else for (const m of isDNS1123Subdomain(prefix)) errs.push('prefix part ' + m);
  } else {
    return [
      'a qualified name ' +
        regexError(QUALIFIED_NAME_ERR, QUALIFIED_NAME_FMT, 'MyName', 'my.name', '123-abc') +
        " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
    ];
  }
  if (name.length === 0) errs.push('name part ' + EMPTY_ERROR);
  else if (name.length > QUALIFIED_NAME_MAX) errs.push('name part ' + maxLenError(QUALIFIED_NAME_MAX));
  if (!QUALIFIED_NAME_RE.test(name)) {
    errs.push('name part ' + regexError(QUALIFIED_NAME_ERR, QUALIFIED_NAME_FMT, 'MyName', 'my.name', '123-abc'));
  }
  return errs;
}

export function isValidLabelValue(value: string): string[] {
  const errs: string[] = [];
  if (value.length > LABEL_VALUE_MAX) errs.push(maxLenError(LABEL_VALUE_MAX));
  if (!LABEL_VALUE_RE.test(value)) {
    errs.push(
      regexError(
        "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
        LABEL_VALUE_FMT,
        'MyValue',
        'my_value',
        '12345',
      ),
    );
  }
  return errs;
}

export function isUUID(value: string): boolean {
  return UUID_RE.test(value);
}

/** A name validator: `prefix` is true when checking a generateName. */
export type NameValidator = (name: string, prefix: boolean) => string[];

// Upstream masks a trailing '-' of a generateName so "foo-" is judged as if completed.
const maskTrailingDash = (name: string): string =>
  name.length > 1 && name.endsWith('-') ? name.slice(0, -2) + 'a' : name;

export const nameIsDNSSubdomain: NameValidator = (name, prefix) =>
  isDNS1123Subdomain(prefix ? maskTrailingDash(name) : name);
export const nameIsDNSLabel: NameValidator = (name, prefix) => isDNS1123Label(prefix ? maskTrailingDash(name) : name);

export function validateQualifiedName(value: string, p: P): FieldError[] {
  return isQualifiedName(value).map((m) => fieldErrors.invalid(p, value, m));
}

/** Label keys are qualified names (the error is on the map, not the key, as upstream). */
export function validateLabelName(key: string, p: P): FieldError[] {
  return isQualifiedName(key).map((m) => fieldErrors.invalid(p, key, m));
}

export function validateLabels(labels: Readonly<Record<string, string>> | undefined, p: P): FieldError[] {
  if (!labels) return [];
  const errs: FieldError[] = [];
  for (const [k, v] of Object.entries(labels)) {
    errs.push(...validateLabelName(k, p));
    for (const m of isValidLabelValue(v)) errs.push(fieldErrors.invalid(p, v, m));
  }
  return errs;
}

export function validateAnnotations(annotations: Readonly<Record<string, string>> | undefined, p: P): FieldError[] {
  if (!annotations) return [];
  const errs: FieldError[] = [];
  let size = 0;
  for (const [k, v] of Object.entries(annotations)) {
    // Annotation keys are qualified names, case-insensitively.
    for (const m of isQualifiedName(k.toLowerCase())) errs.push(fieldErrors.invalid(p, k, m));
    size += Buffer.byteLength(k) + Buffer.byteLength(v);
  }
  if (size > TOTAL_ANNOTATION_SIZE_LIMIT) errs.push(fieldErrors.tooLong(p, '', TOTAL_ANNOTATION_SIZE_LIMIT));
  return errs;
}

export function validateImmutable(newValue: unknown, oldValue: unknown, p: P): FieldError[] {
  return deepEqual(newValue, oldValue) ? [] : [fieldErrors.immutable(p, newValue)];
}

/** Structural equality of JSON values (key order insensitive). */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!deepEqual(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const ak = Object.keys(a);
  if (ak.length !== Object.keys(b).length) return false;
  for (const k of ak) {
    if (!Object.prototype.hasOwnProperty.call(b, k)) return false;
    if (!deepEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k])) return false;
  }
  return true;
}

// ---- metav1.Condition (upstream k8s.io/apimachinery/pkg/apis/meta/v1/validation) ----

/** A metav1.Condition as JSON. */
export interface Condition {
  type?: string;
  status?: string;
  observedGeneration?: number;
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

export const CONDITION_STATUSES = ['False', 'True', 'Unknown'] as const;
const CONDITION_REASON_FMT = '[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?';
const CONDITION_REASON_RE = new RegExp(`^${CONDITION_REASON_FMT}$`);
const CONDITION_REASON_MAX = 1024;
const CONDITION_MESSAGE_MAX = 32 * 1024;
const RFC3339_RE = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

/** ValidateCondition: type is a qualified name, status True/False/Unknown, reason and lastTransitionTime set. */
export function validateCondition(c: Condition, at: FieldPath): FieldError[] {
  const errs: FieldError[] = [...validateLabelName(c.type ?? '', at.child('type'))];
  if (!(CONDITION_STATUSES as readonly string[]).includes(c.status ?? '')) {
    errs.push(fieldErrors.notSupported(at.child('status'), c.status ?? '', CONDITION_STATUSES));
  }
  if (c.observedGeneration !== undefined && c.observedGeneration < 0) {
    errs.push(fieldErrors.invalid(at.child('observedGeneration'), c.observedGeneration, 'must be greater than or equal to zero'));
  }
  if (!c.lastTransitionTime) errs.push(fieldErrors.required(at.child('lastTransitionTime'), 'must be set'));
  else if (!RFC3339_RE.test(c.lastTransitionTime) || Number.isNaN(Date.parse(c.lastTransitionTime))) {
    errs.push(fieldErrors.invalid(at.child('lastTransitionTime'), c.lastTransitionTime, 'must be an RFC 3339 time'));
  }
  const reason = c.reason ?? '';
  if (!reason) errs.push(fieldErrors.required(at.child('reason'), 'must be set'));
  else {
    if (!CONDITION_REASON_RE.test(reason)) {
      errs.push(
        fieldErrors.invalid(
          at.child('reason'),
          reason,
          regexError(
            "a condition reason must start with alphabetic character, optionally followed by a string of alphanumeric characters or '_,:', and must end with an alphanumeric character or '_'",
            CONDITION_REASON_FMT,
            'ResourceReady',
            'ResourceDoesNotExist',
          ),
        ),
      );
    }
    if (reason.length > CONDITION_REASON_MAX) errs.push(fieldErrors.tooLong(at.child('reason'), reason, CONDITION_REASON_MAX));
  }
  if ((c.message ?? '').length > CONDITION_MESSAGE_MAX) errs.push(fieldErrors.tooLong(at.child('message'), c.message, CONDITION_MESSAGE_MAX));
  return errs;
}

/** ValidateConditions: every condition, and no type twice (Duplicate at `[i].type`). */
export function validateConditions(conditions: readonly Condition[] | undefined, at: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  (conditions ?? []).forEach((c, i) => {
    const type = c.type ?? '';
    if (seen.has(type)) errs.push(fieldErrors.duplicate(at.index(i).child('type'), type));
    seen.add(type);
    errs.push(...validateCondition(c, at.index(i)));
  });
  return errs;
}

/** IsDomainPrefixedKey: a label key (qualified name) whose DNS-subdomain prefix is required. */
export function validateDomainPrefixedKey(key: string, p: P): FieldError[] {
  if (!key) return [fieldErrors.required(p)];
  const errs = isQualifiedName(key).map((m) => fieldErrors.invalid(p, key, m));
  if (errs.length) return errs;
  if (key.split('/').length !== 2) return [fieldErrors.invalid(p, key, 'must be a domain-prefixed key (such as "acme.io/foo")')];
  return [];
}
