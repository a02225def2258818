// Spec 000 §2.7 Event (and its §8 limits): required and bounded fields of new events, series, the
// object references, the deprecated fields. Upstream validates events/v1 writes on its internal (core)
// Event, so some errors name core fields (`message` for note, `involvedObject` for regarding, `count`
// for deprecatedCount...); the cases accept either name. Not checked: limited retention (best effort
// by nature).
import { isDeepStrictEqual } from 'node:util';
import { defineCase, type Case, type CaseContext } from '../case.js';
import { noteMay, upstream } from '../findings.js';
import { expectCode, expectEqual, expectObject, expectTrue, fail, show, SUCCESS, expectRefused } from '../verify.js';
import { itemPath, kindCommon, postObject } from './kinds.js';
import { EVENT as EV, FIXED_MICRO_TIME } from './kinds-quota-events.js';
import { clone, createWith, expectInvalid, objectWith, pathInNamespace, putObject, readBack } from './quota-events-common.js';

const must = { ...kindCommon(EV, 'event'), level: 'MUST' } as const;
const should = { ...must, level: 'SHOULD' } as const;
const endpoints = { ...must, spec: { doc: '000', section: '4.1' } } as const;

const post = (ctx: CaseContext, edit: (o: any) => void, hint?: string) => postObject(ctx, EV, objectWith(ctx, EV, edit, hint));
const create = (ctx: CaseContext, edit: (o: any) => void, what: string, hint?: string) => createWith(ctx, EV, edit, what, hint);

/** The v1 field names of the deprecated fields and the core names upstream reports them by. */
const DEPRECATED: ReadonlyArray<[string, string]> = [
  ['deprecatedCount', 'count'],
  ['deprecatedFirstTimestamp', 'firstTimestamp'],
  ['deprecatedLastTimestamp', 'lastTimestamp'],
  ['deprecatedSource', 'source'],
];
const DEPRECATED_VALUES: Record<string, unknown> = {
  deprecatedCount: 3,
  deprecatedFirstTimestamp: '2025-01-01T00:00:00Z',
  deprecatedLastTimestamp: '2025-01-01T00:05:00Z',
  deprecatedSource: { component: 'conformance-suite', host: 'node-1' },
};

/** A string field of a new event is required (absent and empty are both refused). */
function requiredCase(field: string, requirement: string): Case {
  return defineCase({
    ...must,
    upstreamShape: true,
    id: `api.event.${field.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}.required`,
    title: `A new Event without ${field} is rejected`,
    requirements: [requirement],
    async run(ctx) {
      await expectInvalid(ctx, await post(ctx, (o) => { delete o[field]; }), field, `create without ${field}`);
      await expectInvalid(ctx, await post(ctx, (o) => { o[field] = ''; }), field, `create with an empty ${field}`);
    },
  });
}

/** A string field of at most 128 characters: 128 is accepted, 129 refused. */
function maxLengthCase(field: string, requirement: string): Case {
  return defineCase({
    ...must,
    upstreamShape: true,
    id: `api.event.${field.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}.max-128`,
    title: `${field} is at most 128 characters`,
    requirements: [requirement, '000-8-event-string-fields'],
    async run(ctx) {
      const ok = 'A'.repeat(128);
      const o = await create(ctx, (b) => { b[field] = ok; }, `creating an event whose ${field} has 128 characters`);
      expectEqual(o[field], ok, `${field} of 128 characters as stored`);
      await expectInvalid(ctx, await post(ctx, (b) => { b[field] = 'A'.repeat(129); }), field, `create with a ${field} of 129 characters`);
    },
  });
}

export const eventCases: Case[] = [
  defineCase({
    ...must,
    id: 'api.event.scope.namespaced',
    title: 'Event is namespaced: it lives in the namespace it was created in',
    requirements: ['000-2.7-namespaced'],
    async run(ctx) {
      const o = await create(ctx, () => {}, 'creating a valid Event');
      expectEqual(o.metadata?.namespace, ctx.namespace, 'metadata.namespace of the created Event');
      expectCode(await ctx.api.get(pathInNamespace(EV, 'default', o.metadata.name)), 404, 'reading it through another namespace');
    },
  }),
  defineCase({
    ...endpoints,
    id: 'api.event.collection-path',
    title: 'Events are served at /apis/events.orch.io/v1/namespaces/{namespace}/events',
    requirements: ['000-4.1-event-path'],
    async run(ctx) {
      const o = await create(ctx, () => {}, 'creating a valid Event');
      const path = `/apis/events.orch.io/v1/namespaces/${encodeURIComponent(ctx.namespace)}/events`;
      const list = expectObject(await ctx.api.get(path), [200], 'EventList', `GET ${path}`);
      const names = (Array.isArray(list.items) ? list.items : []).map((i: any) => i?.metadata?.name);
      expectTrue(names.includes(o.metadata.name), 'the collection lists the event just created', o.metadata.name, names);
      const got = expectObject(await ctx.api.get(`${path}/${encodeURIComponent(o.metadata.name)}`), [200], EV.kind, `GET ${path}/{name}`);
      expectEqual(got.metadata?.name, o.metadata.name, 'name of the object read at the item path');
    },
  }),
  defineCase({
    ...endpoints,
    id: 'api.event.no-status-subresource',
    title: 'Event has no status subresource: .../{name}/status is not found',
    requirements: ['000-4.1-no-status-subresource'],
    async run(ctx) {
      const o = await create(ctx, () => {}, 'creating a valid Event');
      expectCode(await ctx.api.get(`${itemPath(EV, ctx.namespace, o.metadata.name)}/status`), 404, 'GET .../events/{name}/status');
    },
  }),
  defineCase({
    ...must,
    id: 'api.event.event-time.required',
    upstreamShape: true,
    title: 'A new Event without eventTime is rejected',
    requirements: ['000-2.7-event-time-required'],
    async run(ctx) {
      await expectInvalid(ctx, await post(ctx, (o) => { delete o.eventTime; }), 'eventTime', 'create without eventTime');
    },
  }),
  requiredCase('action', '000-2.7-action-non-empty'),
  maxLengthCase('action', '000-2.7-action-max-128'),
  requiredCase('reason', '000-2.7-reason-non-empty'),
  maxLengthCase('reason', '000-2.7-reason-max-128'),
  defineCase({
    ...must,
    id: 'api.event.note.max-1kb',
    upstreamShape: true,
    title: 'note is at most 1 kB: 1,000 bytes are accepted, more than 1,024 refused (1,001 to 1,024: either reading of "1 kB")',
    requirements: ['000-2.7-note-max-1kb', '000-8-event-note'],
    async run(ctx) {
      // "1 kB" is 1,000 bytes or 1,024 (upstream's): below both a note is taken, above both it is
      // refused, and between them either reading is the spec's. ASCII, so characters are bytes.
      const ok = 'n'.repeat(1000);
      const o = await create(ctx, (b) => { b.note = ok; }, 'creating an event whose note has 1,000 bytes');
      expectEqual(o.note, ok, 'note of 1,000 bytes as stored');
      const edge = 'n'.repeat(1024);
      const res = await post(ctx, (b) => { b.note = edge; }, 'edge');
      if ((SUCCESS.create as readonly number[]).includes(res.status)) {
        expectEqual(expectObject(res, SUCCESS.create, EV.kind, 'creating an event whose note has 1,024 bytes').note, edge, 'note of 1,024 bytes as stored');
      } else {
        await expectRefused(ctx.api, res, { code: 422, reason: 'Invalid' }, 'create with a note of 1,024 bytes (refused: 1 kB read as 1,000 bytes)');
        noteMay('a note of 1,024 bytes (§2.7 "Maximum 1 kB")', 'accepted (1 kB = 1,024 bytes)', `refused: HTTP ${res.status}`);
      }
      await expectInvalid(ctx, await post(ctx, (b) => { b.note = 'n'.repeat(1025); }), ['note', 'message'], 'create with a note of 1,025 bytes');
    },
  }),
  defineCase({
    ...must,
    id: 'api.event.type.allowed',
    title: 'type accepts Normal and Warning',
    requirements: ['000-2.7-type-values'],
    async run(ctx) {
      for (const type of ['Normal', 'Warning']) {
        const o = await create(ctx, (b) => { b.type = type; }, `creating an event of type ${type}`, type.toLowerCase());
        expectEqual(o.type, type, `stored type ${type}`);
      }
    },
  }),
  defineCase({
    ...should,
    id: 'api.event.type.other-rejected',
    title: 'A new Event of a type other than Normal or Warning is rejected',
    requirements: ['000-2.7-type-other-rejected'],
    async run(ctx) {
      await expectInvalid(ctx, await post(ctx, (o) => { o.type = 'Info'; }), 'type', 'create with type "Info"');
    },
  }),
  defineCase({
    ...must,
    id: 'api.event.type.required',
    upstreamShape: true,
    title: 'A new Event without type is rejected',
    requirements: ['000-2.7-type-non-empty'],
    async run(ctx) {
      await expectInvalid(ctx, await post(ctx, (o) => { delete o.type; }), 'type', 'create without type');
    },
  }),
  defineCase({
    ...must,
    id: 'api.event.regarding.round-trip',
    title: 'regarding (an ObjectReference) is stored as given',
    requirements: ['000-2.7-regarding'],
    async run(ctx) {
      const regarding = {
        kind: 'Pod', namespace: ctx.namespace, name: 'subject-pod', uid: '6f3c2a52-93d4-4b0c-8d1e-0a1b2c3d4e5f',
        apiVersion: 'v1', resourceVersion: '12', fieldPath: 'spec.containers{app}',
      };
      const o = await create(ctx, (b) => { b.regarding = regarding; }, 'creating an event regarding a pod');
      expectEqual((await readBack(ctx, EV, o)).regarding, regarding, 'regarding read back');
    },
  }),
  defineCase({
    ...should,
    id: 'api.event.regarding.namespace',
    title: 'A new Event outside default and kube-system names the namespace of what it regards',
    requirements: ['000-2.7-regarding-namespace'],
    async run(ctx) {
      const res = await post(ctx, (o) => { delete o.regarding.namespace; });
      await expectInvalid(ctx, res, ['regarding.namespace', 'involvedObject.namespace', 'regarding'], 'create with a regarding reference without namespace');
    },
  }),
  defineCase({
    ...must,
    id: 'api.event.related.optional',
    title: 'related is optional, and stored as given when set',
    requirements: ['000-2.7-related'],
    async run(ctx) {
      const without = await create(ctx, (b) => { delete b.related; }, 'creating an event without related', 'plain');
      expectEqual(without.related, undefined, 'related of an event created without one');
      const related = { apiVersion: 'v1', kind: 'Node', name: 'node-1' };
      const o = await create(ctx, (b) => { b.related = related; }, 'creating an event with related', 'related');
      expectEqual((await readBack(ctx, EV, o)).related, related, 'related read back');
    },
  }),
  requiredCase('reportingController', '000-2.7-reporting-controller-non-empty'),
  defineCase({
    ...should,
    id: 'api.event.reporting-controller.qualified-name',
    title: 'reportingController is a qualified name',
    requirements: ['000-2.7-reporting-controller-qualified-name'],
    async run(ctx) {
      await expectInvalid(ctx, await post(ctx, (o) => { o.reportingController = 'not a controller!'; }), 'reportingController', 'create with reportingController "not a controller!"');
    },
  }),
  requiredCase('reportingInstance', '000-2.7-reporting-instance-non-empty'),
  maxLengthCase('reportingInstance', '000-2.7-reporting-instance-max-128'),
  defineCase({
    ...must,
    id: 'api.event.series.singleton',
    title: 'series is absent for a singleton event and stored for a series',
    requirements: ['000-2.7-series-singleton-nil'],
    async run(ctx) {
      const single = await create(ctx, (b) => { delete b.series; }, 'creating a singleton event', 'single');
      expectEqual((await readBack(ctx, EV, single)).series, undefined, 'series of a singleton event read back');
      const series = { count: 4, lastObservedTime: FIXED_MICRO_TIME };
      const o = await create(ctx, (b) => { b.series = series; }, 'creating an event with a series', 'series');
      expectEqual((await readBack(ctx, EV, o)).series, series, 'series read back');
    },
  }),
  defineCase({
    ...must,
    id: 'api.event.series.count-required',
    upstreamShape: true,
    title: 'series.count is required when series is set',
    requirements: ['000-2.7-series-count-required'],
    async run(ctx) {
      await expectInvalid(ctx, await post(ctx, (o) => { o.series = { lastObservedTime: FIXED_MICRO_TIME }; }), 'series.count', 'create with a series without count');
    },
  }),
  defineCase({
    ...should,
    id: 'api.event.series.count-min-2',
    title: 'series.count is at least 2',
    requirements: ['000-2.7-series-count-min-2'],
    async run(ctx) {
      await expectInvalid(ctx, await post(ctx, (o) => { o.series = { count: 1, lastObservedTime: FIXED_MICRO_TIME }; }), 'series.count', 'create with series.count 1');
    },
  }),
  defineCase({
    ...must,
    id: 'api.event.series.last-observed-time-required',
    upstreamShape: true,
    title: 'series.lastObservedTime is required when series is set',
    requirements: ['000-2.7-series-last-observed-time-required'],
    async run(ctx) {
      await expectInvalid(ctx, await post(ctx, (o) => { o.series = { count: 2 }; }), 'series.lastObservedTime', 'create with a series without lastObservedTime');
    },
  }),
  defineCase({
    ...must,
    id: 'api.event.deprecated-fields.known',
    upstreamShape: true,
    title: 'The deprecated fields are known: stored as sent, or refused by name, never silently dropped',
    requirements: ['000-2.7-deprecated-fields'],
    async run(ctx) {
      const res = await post(ctx, (o) => { Object.assign(o, clone(DEPRECATED_VALUES)); });
      if (res.status >= 400 && res.status < 500) {
        // Refused: nothing stored (the spec does not say how an error names fields); upstream names
        // each field (its events/v1 name or its core one) in details.causes, a SHOULD finding.
        const s = await expectRefused(ctx.api, res, { code: 422, reason: 'Invalid' }, 'create with the deprecated fields set');
        const fields = (Array.isArray(s.details?.causes) ? s.details.causes : []).map((c: any) => c?.field);
        const missing = DEPRECATED.filter(([v1, core]) => !fields.includes(v1) && !fields.includes(core)).map(([v1]) => v1);
        upstream(() => expectTrue(missing.length === 0, 'details.causes names every deprecated field (upstream\'s)', `causes for ${DEPRECATED.map(([v1]) => v1).join(', ')}`, `no cause for ${missing.join(', ')}; causes: ${show(fields)}`));
        return;
      }
      const o = expectObject(res, SUCCESS.create, EV.kind, 'create with the deprecated fields set');
      for (const [field] of DEPRECATED) {
        const want = DEPRECATED_VALUES[field];
        const got = o[field];
        // Structural comparison: a server may write the keys of deprecatedSource in another order.
        const same = typeof want === 'string' ? typeof got === 'string' && Date.parse(got) === Date.parse(want) : isDeepStrictEqual(got, want);
        if (!same) fail(`${field} of the created event`, show(want), show(got));
      }
    },
  }),
  defineCase({
    ...should,
    id: 'api.event.deprecated-fields.unset-on-create',
    title: 'A new Event through events/v1 leaves the deprecated fields unset',
    requirements: ['000-2.7-deprecated-fields-unset-on-create'],
    async run(ctx) {
      for (const [field, core] of DEPRECATED) {
        const res = await post(ctx, (o) => { o[field] = clone(DEPRECATED_VALUES[field]); }, 'dep');
        await expectInvalid(ctx, res, [field, core], `create with ${field} set`);
      }
    },
  }),
  defineCase({
    ...should,
    id: 'api.event.update.immutable',
    title: 'After creation only series may change',
    requirements: ['000-2.7-immutable-after-create'],
    async run(ctx) {
      const o = await create(ctx, () => {}, 'creating a valid Event');
      for (const [field, value, names] of [
        ['reason', 'OtherReason', ['reason']],
        ['note', 'another note', ['note', 'message']],
        ['action', 'OtherAction', ['action']],
      ] as const) {
        const next = clone(o);
        next[field] = value;
        await expectInvalid(ctx, await putObject(ctx, EV, next), names, `PUT changing ${field}`);
      }
      const next = clone(o);
      next.series = { count: 2, lastObservedTime: FIXED_MICRO_TIME };
      const put = expectObject(await putObject(ctx, EV, next), SUCCESS.replace, EV.kind, 'PUT adding a series');
      expectEqual(put.series?.count, 2, 'series.count after the PUT');
    },
  }),
];
