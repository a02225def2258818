// Event, events.orch.io/v1, namespaced, no status subresource (spec §2.7, §8). Rules follow upstream
// pkg/apis/core/validation/events.go for writes through events/v1 (the strict validation): upstream
// validates the internal (core) Event, so its errors name core fields — `message` for note,
// `involvedObject` for regarding, `count`, `firstTimestamp`, `lastTimestamp` and `source` for the
// deprecated fields — and the reference keeps those paths so that messages match a real server.
import { FieldPath, deepEqual, fieldErrors, isQualifiedName, path, type FieldError } from '../apiserver/field-errors.js';
import { t } from '../apiserver/schema.js';
import { objectReferenceSchema } from './object-reference.js';
import { defineStrategy, type ApiObject } from '../apiserver/strategy.js';
import { fieldAt } from '../apiserver/selectors.js';

export const EVENT_TYPES = ['Normal', 'Warning'] as const;
export const REPORTING_INSTANCE_LENGTH_LIMIT = 128;
export const ACTION_LENGTH_LIMIT = 128;
export const REASON_LENGTH_LIMIT = 128;
export const NOTE_LENGTH_LIMIT = 1024;
/** Namespaces where an event may leave regarding.namespace empty (upstream). */
const NAMESPACES_WITHOUT_REGARDING_NAMESPACE = ['default', 'kube-system'];

export const TIME_FORMAT_ERROR = 'must be an RFC 3339 date-time, e.g. 2006-01-02T15:04:05.000000Z';
export const atMost = (n: number): string => `can have at most ${n} characters`;

interface ObjectReference {
  kind?: string;
  namespace?: string;
  name?: string;
  uid?: string;
  apiVersion?: string;
  resourceVersion?: string;
  fieldPath?: string;
}

interface Event extends ApiObject {
  eventTime?: string;
  series?: { count?: number; lastObservedTime?: string };
  reportingController?: string;
  reportingInstance?: string;
  action?: string;
  reason?: string;
  regarding?: ObjectReference;
  related?: ObjectReference;
  note?: string;
  type?: string;
  deprecatedSource?: { component?: string; host?: string };
  deprecatedFirstTimestamp?: string;
  deprecatedLastTimestamp?: string;
  deprecatedCount?: number;
}

// ---- Times (metav1.Time and metav1.MicroTime as JSON) ----

const RFC3339_RE = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;

/** An RFC 3339 time: whole seconds since the epoch and the fraction's digits. */
export function parseRFC3339(s: string): { seconds: number; fraction: string } | undefined {
  const m = RFC3339_RE.exec(s);
  if (!m) return undefined;
  const [y, mo, d, h, mi, sec] = [1, 2, 3, 4, 5, 6].map((i) => Number(m[i]));
  if (mo! < 1 || mo! > 12 || h! > 23 || mi! > 59 || sec! > 59) return undefined;
  const date = new Date(Date.UTC(y!, mo! - 1, d!, h!, mi!, sec!));
  date.setUTCFullYear(y!); // years below 100 are not shifted to 19xx
  if (date.getUTCDate() !== d) return undefined;
  let offset = 0;
  if (!m[8]) {
    const oh = Number(m[10]);
    const om = Number(m[11]);
    if (oh > 23 || om > 59) return undefined;
    offset = (m[9] === '-' ? -1 : 1) * (oh * 60 + om) * 60;
  }
  return { seconds: date.getTime() / 1000 - offset, fraction: m[7] ?? '' };
}

const isoSeconds = (seconds: number): string => new Date(seconds * 1000).toISOString().slice(0, 19);

/** metav1.MicroTime as upstream writes it: UTC, six fractional digits. Unparsable values stay. */
export function microTime(v: string): string {
  const p = parseRFC3339(v);
  return p ? `${isoSeconds(p.seconds)}.${p.fraction.padEnd(6, '0').slice(0, 6)}Z` : v;
}

/** metav1.Time as upstream writes it: UTC, whole seconds. Unparsable values stay. */
export function wholeSecondTime(v: string): string {
  const p = parseRFC3339(v);
  return p ? `${isoSeconds(p.seconds)}Z` : v;
}

/** A set time that does not parse (upstream fails the decode; here a 422 cause). */
function validateTime(v: string | undefined, at: FieldPath | string): FieldError[] {
  return v === undefined || parseRFC3339(v) ? [] : [fieldErrors.invalid(at, v, TIME_FORMAT_ERROR)];
}

/** Go's zero time.Time (0001-01-01T00:00:00Z) in seconds since the epoch. */
const ZERO_TIME_SECONDS = parseRFC3339('0001-01-01T00:00:00Z')!.seconds;

/** Unset, or Go's zero time, which upstream treats as unset. */
const isZeroTime = (v: string | undefined): boolean => {
  if (v === undefined || v === '') return true;
  const p = parseRFC3339(v);
  return !!p && p.seconds === ZERO_TIME_SECONDS && /^0*$/.test(p.fraction);
};

// ---- The strategy ----

const byteLength = (s: string | undefined): number => Buffer.byteLength(s ?? '');

export const eventStrategy = defineStrategy({
  group: 'events.orch.io',
  version: 'v1',
  kind: 'Event',
  resource: 'events',
  singular: 'event',
  shortNames: ['ev'],
  namespaced: true,
  // Upstream pkg/apis/events/v1 field label conversion (core field names for the core-only ones).
  fieldSelectors: {
    'regarding.kind': fieldAt('regarding.kind'),
    'regarding.namespace': fieldAt('regarding.namespace'),
    'regarding.name': fieldAt('regarding.name'),
    'regarding.uid': fieldAt('regarding.uid'),
    'regarding.apiVersion': fieldAt('regarding.apiVersion'),
    'regarding.resourceVersion': fieldAt('regarding.resourceVersion'),
    'regarding.fieldPath': fieldAt('regarding.fieldPath'),
    reason: fieldAt('reason'),
    reportingController: fieldAt('reportingController'),
    type: fieldAt('type'),
  },
  hasStatus: false,
  deleteResponse: 'status',
  description:
    'A best-effort report of a state change somewhere in the cluster. Events have limited retention; reasons, triggers and messages may evolve. Consumers must treat events as informative, best-effort, supplemental data and must not rely on timing, on a reason reflecting a consistent trigger, or on events continuing to exist.',
  required: ['eventTime'],
  schema: {
    eventTime: t.string('Time the event was first observed (MicroTime).'),
    series: t.object(
      {
        count: t.integer('Occurrences in the series up to the last heartbeat.'),
        lastObservedTime: t.string('Last time an event of the series was seen before the last heartbeat (MicroTime).'),
      },
      'Data about the series, or nil for a singleton event.',
      ['count', 'lastObservedTime'],
    ),
    reportingController: t.string('Name of the emitting controller. Non-empty for new events.'),
    reportingInstance: t.string('ID of the controller instance. Non-empty for new events; at most 128 characters.'),
    action: t.string('Machine-readable action taken or failed regarding the `regarding` object. Non-empty for new events; at most 128 characters.'),
    reason: t.string('Human-readable reason. Non-empty for new events; at most 128 characters.'),
    regarding: t.describe(objectReferenceSchema, 'Object the event is about.'),
    related: t.describe(objectReferenceSchema, 'Optional secondary object.'),
    note: t.string('Human-readable description. Maximum 1 kB; libraries should handle up to 64 kB.'),
    type: t.string('`Normal` or `Warning`; new types may be added. Machine-readable; non-empty for new events.'),
    deprecatedSource: t.object(
      {
        component: t.string('Component that reported the event.'),
        host: t.string('Node the event was reported from.'),
      },
      'Backward-compatibility field.',
    ),
    deprecatedFirstTimestamp: t.string('Backward-compatibility field (Time).'),
    deprecatedLastTimestamp: t.string('Backward-compatibility field (Time).'),
    deprecatedCount: t.integer('Backward-compatibility field.'),
  },

  /** Times come back as upstream serializes them. */
  defaults(o: ApiObject): void {
    const ev = o as Event;
    if (ev.eventTime !== undefined) ev.eventTime = microTime(ev.eventTime);
    if (ev.series?.lastObservedTime !== undefined) ev.series.lastObservedTime = microTime(ev.series.lastObservedTime);
    if (ev.deprecatedFirstTimestamp !== undefined) ev.deprecatedFirstTimestamp = wholeSecondTime(ev.deprecatedFirstTimestamp);
    if (ev.deprecatedLastTimestamp !== undefined) ev.deprecatedLastTimestamp = wholeSecondTime(ev.deprecatedLastTimestamp);
  },

  validate(o: ApiObject): FieldError[] {
    const ev = o as Event;
    const errs: FieldError[] = [
      ...validateTime(ev.eventTime, 'eventTime'),
      ...validateTime(ev.series?.lastObservedTime, 'series.lastObservedTime'),
      ...validateTime(ev.deprecatedFirstTimestamp, 'deprecatedFirstTimestamp'),
      ...validateTime(ev.deprecatedLastTimestamp, 'deprecatedLastTimestamp'),
    ];
    errs.push(...legacyValidate(ev));
    errs.push(...validateSeries(ev));
    if (isZeroTime(ev.eventTime)) errs.push(fieldErrors.required('eventTime'));
    const type = ev.type ?? '';
    if (!(EVENT_TYPES as readonly string[]).includes(type)) errs.push(fieldErrors.invalid('type', '', `has invalid value: ${type}`));
    if (!isZeroTime(ev.deprecatedFirstTimestamp)) errs.push(fieldErrors.invalid('firstTimestamp', '', 'needs to be unset'));
    if (!isZeroTime(ev.deprecatedLastTimestamp)) errs.push(fieldErrors.invalid('lastTimestamp', '', 'needs to be unset'));
    if ((ev.deprecatedCount ?? 0) !== 0) errs.push(fieldErrors.invalid('count', '', 'needs to be unset'));
    if (ev.deprecatedSource?.component || ev.deprecatedSource?.host) errs.push(fieldErrors.invalid('source', '', 'needs to be unset'));
    return errs;
  },

  validateUpdate(o: ApiObject, oldObj: ApiObject): FieldError[] {
    const ev = o as Event;
    const old = oldObj as Event;
    const errs: FieldError[] = [];
    const immutable = (value: unknown, oldValue: unknown, field: string) => {
      if (!deepEqual(value ?? null, oldValue ?? null)) errs.push(fieldErrors.immutable(field, value ?? null));
    };
    immutable(ev.regarding, old.regarding, 'involvedObject');
    immutable(ev.reason ?? '', old.reason ?? '', 'reason');
    immutable(ev.note ?? '', old.note ?? '', 'message');
    immutable(ev.deprecatedSource, old.deprecatedSource, 'source');
    immutable(ev.deprecatedFirstTimestamp, old.deprecatedFirstTimestamp, 'firstTimestamp');
    immutable(ev.deprecatedLastTimestamp, old.deprecatedLastTimestamp, 'lastTimestamp');
    immutable(ev.deprecatedCount ?? 0, old.deprecatedCount ?? 0, 'count');
    immutable(ev.type ?? '', old.type ?? '', 'type');
    // Both are already at microsecond precision (defaults), the precision upstream compares at.
    immutable(ev.eventTime, old.eventTime, 'eventTime');
    immutable(ev.action ?? '', old.action ?? '', 'action');
    immutable(ev.related, old.related, 'related');
    immutable(ev.reportingController ?? '', old.reportingController ?? '', 'reportingController');
    immutable(ev.reportingInstance ?? '', old.reportingInstance ?? '', 'reportingInstance');
    return errs;
  },
});

/** Upstream validateV1EventSeries. */
function validateSeries(ev: Event): FieldError[] {
  if (!ev.series) return [];
  const errs: FieldError[] = [];
  if ((ev.series.count ?? 0) < 2) errs.push(fieldErrors.invalid('series.count', '', 'should be at least 2'));
  if (isZeroTime(ev.series.lastObservedTime)) errs.push(fieldErrors.required('series.lastObservedTime'));
  return errs;
}

/**
 * Upstream legacyValidateEvent over the fields both views share (events/v1 and core/v1 name the
 * controller field and the object reference differently; the errors name them as the request did).
 */
export interface LegacyEventFields {
  readonly namespace: string;
  /** The namespace of the object the event is about (regarding / involvedObject). */
  readonly objectNamespace: string;
  /** eventTime unset: an old-style event. */
  readonly oldStyle: boolean;
  /** reportingController (events/v1) or reportingComponent (core/v1), and its value. */
  readonly controllerField: string;
  readonly controller: string;
  readonly reportingInstance?: string;
  readonly action?: string;
  readonly reason?: string;
  /** note (events/v1) or message (core/v1): upstream names it `message` either way. */
  readonly note?: string;
}

export function legacyEventErrors(f: LegacyEventFields): FieldError[] {
  const errs: FieldError[] = [];
  const involved = path('involvedObject').child('namespace');
  if (f.oldStyle) {
    // Old-style events: the event and the object it is about share a namespace ("default" for cluster objects).
    const ok = f.objectNamespace === '' ? f.namespace === '' || f.namespace === 'default' : f.namespace === f.objectNamespace;
    if (!ok) errs.push(fieldErrors.invalid(involved, f.objectNamespace, 'does not match event.namespace'));
    return errs;
  }
  if (f.objectNamespace === '' && !NAMESPACES_WITHOUT_REGARDING_NAMESPACE.includes(f.namespace)) {
    errs.push(fieldErrors.invalid(involved, f.objectNamespace, 'does not match event.namespace'));
  }
  if (!f.controller) errs.push(fieldErrors.required(f.controllerField));
  for (const m of isQualifiedName(f.controller)) errs.push(fieldErrors.invalid(f.controllerField, f.controller, m));
  if (!f.reportingInstance) errs.push(fieldErrors.required('reportingInstance'));
  if (byteLength(f.reportingInstance) > REPORTING_INSTANCE_LENGTH_LIMIT) {
    errs.push(fieldErrors.invalid('reportingInstance', '', atMost(REPORTING_INSTANCE_LENGTH_LIMIT)));
  }
  if (!f.action) errs.push(fieldErrors.required('action'));
  if (byteLength(f.action) > ACTION_LENGTH_LIMIT) errs.push(fieldErrors.invalid('action', '', atMost(ACTION_LENGTH_LIMIT)));
  if (!f.reason) errs.push(fieldErrors.required('reason'));
  if (byteLength(f.reason) > REASON_LENGTH_LIMIT) errs.push(fieldErrors.invalid('reason', '', atMost(REASON_LENGTH_LIMIT)));
  if (byteLength(f.note) > NOTE_LENGTH_LIMIT) errs.push(fieldErrors.invalid('message', '', atMost(NOTE_LENGTH_LIMIT)));
  return errs;
}

/** Upstream legacyValidateEvent for events/v1 requests (on create and update). */
function legacyValidate(ev: Event): FieldError[] {
  return legacyEventErrors({
    namespace: ev.metadata.namespace ?? '', objectNamespace: ev.regarding?.namespace ?? '', oldStyle: isZeroTime(ev.eventTime),
    controllerField: 'reportingController', controller: ev.reportingController ?? '',
    reportingInstance: ev.reportingInstance, action: ev.action, reason: ev.reason, note: ev.note,
  });
}
