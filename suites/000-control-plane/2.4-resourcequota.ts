// Spec 000 §2.4 ResourceQuota: spec.hard, spec.scopes, spec.scopeSelector and its requirements, and
// status.hard/status.used (written through the status subresource). Quantity syntax, resource names
// and scope combinations follow upstream validation (ground truth). Which objects a quota matches and
// tracks, as the quota controller and admission see it, is checked in 2.4-quota-usage.ts; that
// strategic merge patch replaces `values`, in 4.2-patch.ts.
//
// Every case works in a namespace of its own: a quota's limits (and a status.hard a case writes,
// which the admission enforces) apply to every create in its namespace, and must not refuse other
// cases' pods. A quota controller writes the status of each new quota, so status writes read the
// quota afresh and are made again on a conflict.
import { defineCase, type Case, type CaseContext } from '../case.js';
import type { ApiResponse } from '../../runner/client.js';
import { expectCode, expectEqual, expectObject, expectTrue, show, SUCCESS } from '../verify.js';
import { itemPath, kindCommon, postObject } from './kinds.js';
import { RESOURCE_QUOTA as RQ } from './kinds-quota-events.js';
import { clone, createWith, expectInvalid, expectRejected, objectWith, pathInNamespace, putObject, readBack } from './quota-events-common.js';

const must = { ...kindCommon(RQ, 'resourcequota'), level: 'MUST' } as const;
const should = { ...must, level: 'SHOULD' } as const;
const endpoints = { ...must, spec: { doc: '000', section: '4.1' } } as const;

/** Where upstream reports scope-selector errors (without the entry's index), and the indexed form. */
const MATCH = 'spec.scopeSelector.matchExpressions';
const matchField = (field: string, i = 0) => [`${MATCH}.${field}`, `${MATCH}[${i}].${field}`];

/** A quota whose spec is `spec` (no other fields). */
const postSpec = (ctx: CaseContext, spec: Record<string, unknown>, hint?: string) =>
  postObject(ctx, RQ, objectWith(ctx, RQ, (o) => { o.spec = spec; }, hint));
const createSpec = (ctx: CaseContext, spec: Record<string, unknown>, what: string, hint?: string) =>
  createWith(ctx, RQ, (o) => { o.spec = spec; }, what, hint);
/** A quota limiting pods, with one scope-selector requirement. */
const selectorSpec = (req: Record<string, unknown>, hard: Record<string, unknown> = { pods: '10' }) => ({ hard, scopeSelector: { matchExpressions: [req] } });
/** Hard limits each scope can track. */
const hardFor = (scope: string) => (scope === 'VolumeAttributesClass' ? { persistentvolumeclaims: '5' } : { pods: '5' });
const SCOPES = ['BestEffort', 'CrossNamespacePodAffinity', 'NotBestEffort', 'NotTerminating', 'PriorityClass', 'Terminating', 'VolumeAttributesClass'];

/** The case, run with a namespace of its own (created, labelled and tracked) as `ctx.namespace`. */
function inOwnNamespace(c: Case): Case {
  return {
    ...c,
    impact: 'cluster-scoped',
    async run(ctx) {
      const ns = ctx.uniqueName('rq');
      ctx.track(`/api/v1/namespaces/${ns}`);
      expectObject(await ctx.api.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns, labels: { ...ctx.labels } } }), SUCCESS.create, 'Namespace', 'creating a namespace of the case\'s own');
      await c.run({ ...ctx, namespace: ns });
    },
  };
}

/** PUTs the quota (or its /status) as read afresh with `edit` applied, again on a conflict: a quota controller writes status too. */
async function putFresh(ctx: CaseContext, obj: any, edit: (o: any) => void, status = false): Promise<ApiResponse> {
  for (let attempt = 1; ; attempt++) {
    const next = clone(await readBack(ctx, RQ, obj, 'reading the quota before the PUT'));
    edit(next);
    const res = await putObject(ctx, RQ, next, status);
    if (res.status !== 409 || attempt >= 5) return res;
  }
}

/** A quantity as a server writes it back (plain or decimal number, optional SI or binary suffix). */
const QUANTITY = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+|m|k|M|G|T|P|E|Ki|Mi|Gi|Ti|Pi|Ei)?$/;

/**
 * A quota status after `written` (whose hard equals the quota's spec.hard) went through /status.
 * status.hard is the enforced limits, which are spec.hard, so it reads back as written; status.used
 * is the OBSERVED usage, which a quota controller recomputes at once, so only its shape is checked:
 * a map from the limited resource names to quantities.
 */
function expectQuotaStatus(status: any, written: { hard: Record<string, string> }, what: string): void {
  expectEqual(status?.hard, written.hard, `${what}: status.hard (the enforced limits, spec.hard)`);
  const used = status?.used;
  expectTrue(!!used && typeof used === 'object' && !Array.isArray(used), `${what}: status.used`, 'an object (observed usage per resource name)', used);
  for (const [name, q] of Object.entries(used)) {
    expectTrue(name in written.hard, `${what}: resource names in status.used`, `among the limited ones ${show(Object.keys(written.hard))}`, name);
    expectTrue(typeof q === 'string' && QUANTITY.test(q), `${what}: status.used[${name}]`, 'a quantity', q);
  }
}

export const resourceQuotaCases: Case[] = ([
  defineCase({
    ...must,
    id: 'api.resourcequota.scope.namespaced',
    title: 'ResourceQuota is namespaced: it lives in the namespace it was created in',
    requirements: ['000-2.4-namespaced'],
    async run(ctx) {
      const o = await createWith(ctx, RQ, () => {}, 'creating a valid ResourceQuota');
      expectEqual(o.metadata?.namespace, ctx.namespace, 'metadata.namespace of the created ResourceQuota');
      expectCode(await ctx.api.get(pathInNamespace(RQ, 'default', o.metadata.name)), 404, 'reading it through another namespace');
    },
  }),
  defineCase({
    ...endpoints,
    id: 'api.resourcequota.collection-path',
    title: 'ResourceQuotas are served at /api/v1/namespaces/{namespace}/resourcequotas',
    requirements: ['000-4.1-resourcequota-path'],
    async run(ctx) {
      const o = await createWith(ctx, RQ, () => {}, 'creating a valid ResourceQuota');
      const path = `/api/v1/namespaces/${encodeURIComponent(ctx.namespace)}/resourcequotas`;
      const list = expectObject(await ctx.api.get(path), [200], 'ResourceQuotaList', `GET ${path}`);
      const names = (Array.isArray(list.items) ? list.items : []).map((i: any) => i?.metadata?.name);
      expectTrue(names.includes(o.metadata.name), 'the collection lists the quota just created', o.metadata.name, names);
      const got = expectObject(await ctx.api.get(`${path}/${encodeURIComponent(o.metadata.name)}`), [200], RQ.kind, `GET ${path}/{name}`);
      expectEqual(got.metadata?.name, o.metadata.name, 'name of the object read at the item path');
    },
  }),
  defineCase({
    ...endpoints,
    id: 'api.resourcequota.status-subresource',
    title: 'ResourceQuota has a status subresource: .../{name}/status reads and replaces status',
    requirements: ['000-4.1-resourcequota-status-subresource'],
    async run(ctx) {
      const o = await createWith(ctx, RQ, (b) => { b.spec = { hard: { pods: '10' } }; }, 'creating a quota of 10 pods');
      const path = `${itemPath(RQ, ctx.namespace, o.metadata.name)}/status`;
      const status = { hard: { pods: '10' }, used: { pods: '1' } };
      for (let attempt = 1; ; attempt++) {
        const got = expectObject(await ctx.api.get(path), [200], RQ.kind, 'GET .../status');
        const res = await ctx.api.put(path, { ...got, status });
        if (res.status === 409 && attempt < 5) continue;
        const put = expectObject(res, SUCCESS.replace, RQ.kind, 'PUT .../status');
        expectQuotaStatus(put.status, status, 'status after PUT .../status');
        break;
      }
    },
  }),
  defineCase({
    ...must,
    id: 'api.resourcequota.hard.round-trip',
    title: 'spec.hard maps resource names to quantities and is stored as given',
    requirements: ['000-2.4-spec-hard'],
    async run(ctx) {
      const hard = { cpu: '2', memory: '1Gi', pods: '10', 'count/configmaps': '5' };
      const o = await createSpec(ctx, { hard }, 'creating a quota with cpu, memory, pods and count/configmaps');
      expectEqual((await readBack(ctx, RQ, o)).spec?.hard, hard, 'spec.hard read back');
    },
  }),
  defineCase({
    ...should,
    id: 'api.resourcequota.hard.quantity-forms',
    title: 'spec.hard accepts every quantity form: plain, fractional, signed, suffixed, exponent, JSON number',
    requirements: ['000-2.4-spec-hard-quantity-syntax'],
    async run(ctx) {
      for (const q of ['10', '500m', '1Gi', '2e3', '1.5', '+1', '.5', '250M', 10]) {
        await createSpec(ctx, { hard: { cpu: q } }, `creating a quota with hard.cpu ${show(q)}`, 'q');
      }
    },
  }),
  defineCase({
    ...should,
    id: 'api.resourcequota.hard.quantity-invalid',
    title: 'spec.hard refuses values that are not quantities',
    requirements: ['000-2.4-spec-hard-quantity-syntax'],
    async run(ctx) {
      for (const q of ['1.5.Gi', '1Gb', '', 'abc']) {
        await expectRejected(ctx, await postSpec(ctx, { hard: { memory: q } }, 'bad'), 'spec.hard[memory]', `create with hard.memory ${show(q)}`);
      }
    },
  }),
  defineCase({
    ...should,
    id: 'api.resourcequota.hard.quantity-canonical',
    title: 'Quantities come back as strings in canonical form',
    requirements: ['000-2.4-spec-hard-quantity-canonical'],
    async run(ctx) {
      const o = await createSpec(ctx, { hard: { 'requests.cpu': '1.5', 'requests.memory': '0.5Gi', cpu: '1000m', pods: 10 } }, 'creating a quota with non-canonical quantities');
      const want = { 'requests.cpu': '1500m', 'requests.memory': '512Mi', cpu: '1', pods: '10' };
      expectEqual(o.spec?.hard, want, 'spec.hard of the created quota');
      expectEqual((await readBack(ctx, RQ, o)).spec?.hard, want, 'spec.hard read back');
    },
  }),
  defineCase({
    ...should,
    id: 'api.resourcequota.hard.non-negative',
    title: 'A negative quantity in spec.hard is rejected',
    requirements: ['000-2.4-spec-hard-non-negative'],
    async run(ctx) {
      await expectInvalid(ctx, await postSpec(ctx, { hard: { pods: '-1' } }), 'spec.hard[pods]', 'create with hard.pods "-1"');
      await expectInvalid(ctx, await postSpec(ctx, { hard: { memory: '-1Gi' } }), 'spec.hard[memory]', 'create with hard.memory "-1Gi"');
    },
  }),
  defineCase({
    ...should,
    id: 'api.resourcequota.hard.resource-name-invalid',
    title: 'spec.hard refuses names that are not qualified names or not standard quota resources',
    requirements: ['000-2.4-spec-hard-resource-names'],
    async run(ctx) {
      for (const name of ['not a name!', 'widgets', 'storage']) {
        await expectInvalid(ctx, await postSpec(ctx, { hard: { [name]: '1' } }), `spec.hard[${name}]`, `create with hard ${show(name)}`);
      }
    },
  }),
  defineCase({
    ...should,
    id: 'api.resourcequota.hard.resource-name-qualified',
    title: 'spec.hard accepts domain-qualified resource names (extended resources, object counts)',
    requirements: ['000-2.4-spec-hard-resource-names'],
    async run(ctx) {
      const hard = { 'example.com/gpu': '4', 'requests.example.com/gpu': '4', 'count/deployments.apps': '3', 'hugepages-2Mi': '1Gi' };
      const o = await createSpec(ctx, { hard }, 'creating a quota with qualified resource names');
      expectEqual(o.spec?.hard, hard, 'spec.hard of the created quota');
    },
  }),
  defineCase({
    ...should,
    id: 'api.resourcequota.hard.integer-resources',
    title: 'Object counts and extended resources take whole numbers; cpu takes fractions',
    requirements: ['000-2.4-spec-hard-integer-resources'],
    async run(ctx) {
      for (const [name, q] of [['pods', '1500m'], ['count/configmaps', '2.5'], ['example.com/gpu', '0.5']] as const) {
        await expectInvalid(ctx, await postSpec(ctx, { hard: { [name]: q } }), `spec.hard[${name}]`, `create with hard ${show(name)} ${show(q)}`);
      }
      await createSpec(ctx, { hard: { cpu: '1500m' } }, 'creating a quota with hard.cpu "1500m"');
    },
  }),
  defineCase({
    ...should,
    id: 'api.resourcequota.scopes.allowed',
    title: 'spec.scopes accepts every scope name of the list',
    requirements: ['000-2.4-spec-scopes-values'],
    async run(ctx) {
      for (const scope of SCOPES) {
        const o = await createSpec(ctx, { hard: hardFor(scope), scopes: [scope] }, `creating a quota with scopes [${scope}]`, 'scope');
        expectEqual(o.spec?.scopes, [scope], `spec.scopes of the quota scoped ${scope}`);
      }
    },
  }),
  defineCase({
    ...should,
    id: 'api.resourcequota.scopes.unsupported',
    title: 'spec.scopes refuses a scope name outside the list',
    requirements: ['000-2.4-spec-scopes-values'],
    async run(ctx) {
      await expectInvalid(ctx, await postSpec(ctx, { hard: { pods: '5' }, scopes: ['Everything'] }), 'spec.scopes', 'create with scopes ["Everything"]');
    },
  }),
  defineCase({
    ...should,
    id: 'api.resourcequota.scopes.conflicting',
    title: 'BestEffort with NotBestEffort, and Terminating with NotTerminating, are refused together',
    requirements: ['000-2.4-spec-scopes-conflicting'],
    async run(ctx) {
      for (const pair of [['BestEffort', 'NotBestEffort'], ['Terminating', 'NotTerminating']]) {
        await expectInvalid(ctx, await postSpec(ctx, { hard: { pods: '5' }, scopes: pair }), 'spec.scopes', `create with scopes ${show(pair)}`);
        const selector = { matchExpressions: pair.map((scopeName) => ({ scopeName, operator: 'Exists' })) };
        await expectInvalid(ctx, await postSpec(ctx, { hard: { pods: '5' }, scopeSelector: selector }), 'spec.scopeSelector', `create with a scope selector on ${show(pair)}`);
      }
    },
  }),
  defineCase({
    ...should,
    id: 'api.resourcequota.scopes.resources',
    title: 'A scope cannot limit a resource it does not track',
    requirements: ['000-2.4-spec-scopes-resources'],
    async run(ctx) {
      await expectInvalid(ctx, await postSpec(ctx, { hard: { cpu: '1' }, scopes: ['BestEffort'] }), 'spec.scopes', 'create with scopes [BestEffort] limiting cpu');
      await expectInvalid(ctx, await postSpec(ctx, { hard: { pods: '1' }, scopes: ['VolumeAttributesClass'] }), 'spec.scopes', 'create with scopes [VolumeAttributesClass] limiting pods');
      await createSpec(ctx, { hard: { pods: '1', 'requests.cpu': '1' }, scopes: ['NotBestEffort'] }, 'creating a quota scoped NotBestEffort limiting pods and requests.cpu');
    },
  }),
  defineCase({
    ...should,
    id: 'api.resourcequota.scopes.immutable',
    title: 'spec.scopes cannot change after creation',
    requirements: ['000-2.4-spec-scopes-immutable'],
    async run(ctx) {
      const o = await createSpec(ctx, { hard: { pods: '5' }, scopes: ['NotTerminating'] }, 'creating a quota scoped NotTerminating');
      await expectInvalid(ctx, await putFresh(ctx, o, (next) => { next.spec.scopes = ['Terminating']; }), 'spec.scopes', 'PUT changing scopes to [Terminating]');
      expectEqual((await readBack(ctx, RQ, o)).spec?.scopes, ['NotTerminating'], 'spec.scopes after the refused change');
    },
  }),
  defineCase({
    ...must,
    id: 'api.resourcequota.scope-selector.round-trip',
    title: 'spec.scopeSelector.matchExpressions is stored as given, next to spec.scopes',
    requirements: ['000-2.4-scope-selector-match-expressions'],
    async run(ctx) {
      const scopeSelector = {
        matchExpressions: [
          { scopeName: 'PriorityClass', operator: 'In', values: ['high', 'low'] },
          { scopeName: 'NotTerminating', operator: 'Exists' },
        ],
      };
      const o = await createSpec(ctx, { hard: { pods: '5' }, scopes: ['NotBestEffort'], scopeSelector }, 'creating a quota with scopes and a scope selector');
      const got = await readBack(ctx, RQ, o);
      expectEqual(got.spec?.scopeSelector, scopeSelector, 'spec.scopeSelector read back');
      expectEqual(got.spec?.scopes, ['NotBestEffort'], 'spec.scopes read back');
    },
  }),
  defineCase({
    ...must,
    id: 'api.resourcequota.scope-selector.operator-required',
    upstreamShape: true,
    title: 'A scope-selector requirement without operator is rejected',
    requirements: ['000-2.4-scope-requirement-operator-required'],
    async run(ctx) {
      await expectInvalid(ctx, await postSpec(ctx, selectorSpec({ scopeName: 'PriorityClass', values: ['high'] })), matchField('operator'), 'create with a requirement without operator');
    },
  }),
  defineCase({
    ...must,
    id: 'api.resourcequota.scope-selector.operator-allowed',
    title: 'The operators In, NotIn, Exists and DoesNotExist are accepted',
    requirements: ['000-2.4-scope-requirement-operator-values'],
    async run(ctx) {
      for (const req of [
        { scopeName: 'PriorityClass', operator: 'In', values: ['high'] },
        { scopeName: 'PriorityClass', operator: 'NotIn', values: ['low'] },
        { scopeName: 'PriorityClass', operator: 'Exists' },
        { scopeName: 'PriorityClass', operator: 'DoesNotExist' },
      ]) {
        const o = await createSpec(ctx, selectorSpec(req), `creating a quota with operator ${req.operator}`, 'op');
        expectEqual(o.spec?.scopeSelector?.matchExpressions?.[0]?.operator, req.operator, `stored operator ${req.operator}`);
      }
    },
  }),
  defineCase({
    ...must,
    id: 'api.resourcequota.scope-selector.operator-unsupported',
    upstreamShape: true,
    title: 'An operator outside In, NotIn, Exists, DoesNotExist is rejected',
    requirements: ['000-2.4-scope-requirement-operator-values'],
    async run(ctx) {
      await expectInvalid(ctx, await postSpec(ctx, selectorSpec({ scopeName: 'PriorityClass', operator: 'Equals', values: ['high'] })), matchField('operator'), 'create with operator "Equals"');
    },
  }),
  defineCase({
    ...must,
    id: 'api.resourcequota.scope-selector.scope-name-required',
    upstreamShape: true,
    title: 'A scope-selector requirement without scopeName is rejected',
    requirements: ['000-2.4-scope-requirement-scope-name-required'],
    async run(ctx) {
      await expectInvalid(ctx, await postSpec(ctx, selectorSpec({ operator: 'Exists' })), matchField('scopeName'), 'create with a requirement without scopeName');
    },
  }),
  defineCase({
    ...must,
    id: 'api.resourcequota.scope-selector.scope-name-allowed',
    title: 'Every scopeName of the list is accepted',
    requirements: ['000-2.4-scope-requirement-scope-name-values'],
    async run(ctx) {
      for (const scopeName of SCOPES) {
        const o = await createSpec(ctx, selectorSpec({ scopeName, operator: 'Exists' }, hardFor(scopeName)), `creating a quota selecting ${scopeName}`, 'name');
        expectEqual(o.spec?.scopeSelector?.matchExpressions?.[0]?.scopeName, scopeName, `stored scopeName ${scopeName}`);
      }
    },
  }),
  defineCase({
    ...must,
    id: 'api.resourcequota.scope-selector.scope-name-unsupported',
    upstreamShape: true,
    title: 'A scopeName outside the list is rejected',
    requirements: ['000-2.4-scope-requirement-scope-name-values'],
    async run(ctx) {
      await expectInvalid(ctx, await postSpec(ctx, selectorSpec({ scopeName: 'Everything', operator: 'Exists' })), matchField('scopeName'), 'create with scopeName "Everything"');
    },
  }),
  defineCase({
    ...must,
    id: 'api.resourcequota.scope-selector.values-required',
    upstreamShape: true,
    title: 'values must be non-empty for In and NotIn',
    requirements: ['000-2.4-scope-requirement-values-in-notin-non-empty'],
    async run(ctx) {
      for (const operator of ['In', 'NotIn']) {
        await expectInvalid(ctx, await postSpec(ctx, selectorSpec({ scopeName: 'PriorityClass', operator, values: [] })), matchField('values'), `create with operator ${operator} and no values`);
      }
    },
  }),
  defineCase({
    ...must,
    id: 'api.resourcequota.scope-selector.values-forbidden',
    upstreamShape: true,
    title: 'values must be empty for Exists and DoesNotExist',
    requirements: ['000-2.4-scope-requirement-values-exists-empty'],
    async run(ctx) {
      for (const operator of ['Exists', 'DoesNotExist']) {
        await expectInvalid(ctx, await postSpec(ctx, selectorSpec({ scopeName: 'PriorityClass', operator, values: ['high'] })), matchField('values'), `create with operator ${operator} and values`);
      }
    },
  }),
  defineCase({
    ...should,
    id: 'api.resourcequota.scope-selector.exists-only-scopes',
    title: 'Terminating, NotTerminating, BestEffort, NotBestEffort and CrossNamespacePodAffinity take only Exists',
    requirements: ['000-2.4-scope-requirement-exists-only-scopes'],
    async run(ctx) {
      for (const [scopeName, operator, values] of [
        ['BestEffort', 'DoesNotExist', undefined],
        ['Terminating', 'In', ['x']],
        ['CrossNamespacePodAffinity', 'NotIn', ['x']],
      ] as const) {
        const req = { scopeName, operator, ...(values ? { values } : {}) };
        await expectInvalid(ctx, await postSpec(ctx, selectorSpec(req)), matchField('operator'), `create selecting ${scopeName} with operator ${operator}`);
      }
    },
  }),
  defineCase({
    ...must,
    id: 'api.resourcequota.status.hard-used',
    title: 'status.hard and status.used are written through /status and read back',
    requirements: ['000-2.4-status-hard', '000-2.4-status-used'],
    async run(ctx) {
      const o = await createWith(ctx, RQ, (b) => { b.spec = { hard: { pods: '10', cpu: '2' } }; }, 'creating a quota');
      const status = { hard: { pods: '10', cpu: '2' }, used: { pods: '3', cpu: '500m' } };
      expectObject(await putFresh(ctx, o, (next) => { next.status = status; }, true), SUCCESS.replace, RQ.kind, 'PUT .../status with hard and used');
      expectQuotaStatus((await readBack(ctx, RQ, o)).status, status, 'status read back');
    },
  }),
  defineCase({
    ...should,
    id: 'api.resourcequota.status.quantities',
    title: 'status.hard and status.used are checked like spec.hard',
    requirements: ['000-2.4-status-quantities'],
    async run(ctx) {
      const o = await createWith(ctx, RQ, () => {}, 'creating a quota');
      const bad: Array<[Record<string, unknown>, string]> = [
        [{ used: { pods: '-1' } }, 'status.used[pods]'],
        [{ hard: { cpu: 'abc' } }, 'status.hard[cpu]'],
        [{ used: { 'not a name!': '1' } }, 'status.used[not a name!]'],
      ];
      for (const [status, field] of bad) {
        await expectRejected(ctx, await putFresh(ctx, o, (next) => { next.status = status; }, true), field, `PUT .../status with ${show(status)}`);
      }
    },
  }),
] as Case[]).map(inOwnNamespace);
