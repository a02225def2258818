// Event, core v1 (`/api/v1/.../events`): the older view of the events that events.orch.io/v1 serves
// (event.ts). Upstream serves both from one store, converting with pkg/apis/events/v1's conversion:
// regarding is involvedObject, note is message, reportingController is reportingComponent, and the
// deprecated* fields are the core ones (source, firstTimestamp, lastTimestamp, count). Clients of
// the older API — kubectl describe and kubectl events, client-go's record package — read and write
// here. Writes are validated as upstream validates a core/v1 request (legacyValidateEvent only: the
// old recorder updates count and lastTimestamp in place, so nothing more is checked).
import { fieldErrors, type FieldError } from '../apiserver/field-errors.js';
import { t } from '../apiserver/schema.js';
import { defineStrategy, type ApiObject } from '../apiserver/strategy.js';
import { fieldAt } from '../apiserver/selectors.js';
import { objectReferenceSchema } from './object-reference.js';
import { eventStrategy, microTime, parseRFC3339, wholeSecondTime, TIME_FORMAT_ERROR, legacyEventErrors } from './event.js';
import type { ValueCodec } from '../storage/converted.js';

type Json = Record<string, unknown>;

/** core field ← events.orch.io/v1 field, in core's declaration order (upstream's conversion). */
const CORE_FROM_EVENTS: ReadonlyArray<readonly [core: string, events: string]> = [
  ['involvedObject', 'regarding'],
  ['reason', 'reason'],
  ['message', 'note'],
  ['source', 'deprecatedSource'],
  ['firstTimestamp', 'deprecatedFirstTimestamp'],
  ['lastTimestamp', 'deprecatedLastTimestamp'],
  ['count', 'deprecatedCount'],
  ['type', 'type'],
  ['eventTime', 'eventTime'],
  ['series', 'series'],
  ['action', 'action'],
  ['related', 'related'],
  ['reportingComponent', 'reportingController'],
  ['reportingInstance', 'reportingInstance'],
];

/** events.orch.io/v1's declaration order, for values written through the core view. */
const EVENTS_ORDER = Object.keys(eventStrategy.schema);

function rename(from: Json, pairs: ReadonlyArray<readonly [to: string, from: string]>, order: readonly string[], apiVersion: string): Json {
  const byName = new Map(pairs.map(([to, f]) => [to, f]));
  const out: Json = { apiVersion, kind: 'Event', metadata: from['metadata'] };
  for (const to of order) {
    const v = from[byName.get(to)!];
    if (v !== undefined) out[to] = v;
  }
  return out;
}

/** Upstream Convert_core_Event_To_v1_Event / Convert_v1_Event_To_core_Event, on stored JSON. */
export const coreEventCodec: ValueCodec = {
  toStored: (core) => rename(core, CORE_FROM_EVENTS.map(([c, e]) => [e, c] as const), EVENTS_ORDER, 'events.orch.io/v1'),
  fromStored: (events) => rename(events, CORE_FROM_EVENTS, CORE_FROM_EVENTS.map(([c]) => c), 'v1'),
};

interface CoreEvent extends ApiObject {
  involvedObject?: { namespace?: string };
  eventTime?: string;
  series?: { count?: number; lastObservedTime?: string };
  firstTimestamp?: string;
  lastTimestamp?: string;
  reportingComponent?: string;
  reportingInstance?: string;
  action?: string;
  reason?: string;
  message?: string;
}


export const coreEventStrategy = defineStrategy({
  group: '',
  version: 'v1',
  kind: 'Event',
  resource: 'events',
  singular: 'event',
  shortNames: ['ev'],
  namespaced: true,
  storedAs: { group: 'events.orch.io', resource: 'events', codec: coreEventCodec },
  // Upstream pkg/registry/core/event ToSelectableFields.
  fieldSelectors: {
    'involvedObject.kind': fieldAt('involvedObject.kind'),
    'involvedObject.namespace': fieldAt('involvedObject.namespace'),
    'involvedObject.name': fieldAt('involvedObject.name'),
    'involvedObject.uid': fieldAt('involvedObject.uid'),
    'involvedObject.apiVersion': fieldAt('involvedObject.apiVersion'),
    'involvedObject.resourceVersion': fieldAt('involvedObject.resourceVersion'),
    'involvedObject.fieldPath': fieldAt('involvedObject.fieldPath'),
    reason: fieldAt('reason'),
    reportingComponent: fieldAt('reportingComponent'),
    // The source component, or the reporting controller of a new-style event.
    source: (o) => fieldAt('source.component')(o) || fieldAt('reportingComponent')(o),
    type: fieldAt('type'),
  },
  hasStatus: false,
  deleteResponse: 'status',
  description: eventStrategy.description,
  schema: {
    involvedObject: t.describe(objectReferenceSchema, 'The object that this event is about.'),
    reason: t.string('Short, machine understandable reason for the transition into the object\'s current status.'),
    message: t.string('Human-readable description of the status of this operation.'),
    source: t.object(
      {
        component: t.string('Component from which the event is generated.'),
        host: t.string('Node name on which the event is generated.'),
      },
      'The component reporting this event.',
    ),
    firstTimestamp: t.string('The time at which the event was first recorded (Time).'),
    lastTimestamp: t.string('The time at which the most recent occurrence of this event was recorded (Time).'),
    count: t.integer('The number of times this event has occurred.'),
    type: t.string('Type of this event (Normal, Warning); new types could be added in the future.'),
    eventTime: t.string('Time when this Event was first observed (MicroTime).'),
    series: t.object(
      {
        count: t.integer('Number of occurrences in this series up to the last heartbeat time.'),
        lastObservedTime: t.string('Time of the last occurrence observed (MicroTime).'),
      },
      'Data about the Event series this event represents, or nil if it is a singleton Event.',
    ),
    action: t.string('What action was taken/failed regarding the involved object.'),
    related: t.describe(objectReferenceSchema, 'Optional secondary object for more complex actions.'),
    reportingComponent: t.string('Name of the controller that emitted this Event.'),
    reportingInstance: t.string('ID of the controller instance.'),
  },

  defaults(o: ApiObject): void {
    const ev = o as CoreEvent;
    if (ev.eventTime !== undefined) ev.eventTime = microTime(ev.eventTime);
    if (ev.series?.lastObservedTime !== undefined) ev.series.lastObservedTime = microTime(ev.series.lastObservedTime);
    if (ev.firstTimestamp !== undefined) ev.firstTimestamp = wholeSecondTime(ev.firstTimestamp);
    if (ev.lastTimestamp !== undefined) ev.lastTimestamp = wholeSecondTime(ev.lastTimestamp);
  },

  validate: (o: ApiObject) => legacyValidate(o as CoreEvent),
  validateUpdate: () => [],
});

const validTime = (v: string | undefined, at: string): FieldError[] =>
  v === undefined || v === '' || parseRFC3339(v) ? [] : [fieldErrors.invalid(at, v, TIME_FORMAT_ERROR)];

const isUnset = (v: string | undefined): boolean => v === undefined || v === '' || v.startsWith('0001-01-01T00:00:00');

/** Upstream legacyValidateEvent for a core/v1 request (reportingComponent named as core names it). */
function legacyValidate(ev: CoreEvent): FieldError[] {
  return [
    ...validTime(ev.eventTime, 'eventTime'),
    ...validTime(ev.series?.lastObservedTime, 'series.lastObservedTime'),
    ...validTime(ev.firstTimestamp, 'firstTimestamp'),
    ...validTime(ev.lastTimestamp, 'lastTimestamp'),
    ...legacyEventErrors({
      namespace: ev.metadata.namespace ?? '', objectNamespace: ev.involvedObject?.namespace ?? '', oldStyle: isUnset(ev.eventTime),
      controllerField: 'reportingComponent', controller: ev.reportingComponent ?? '',
      reportingInstance: ev.reportingInstance, action: ev.action, reason: ev.reason, note: ev.message,
    }),
  ];
}
