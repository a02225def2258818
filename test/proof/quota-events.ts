// Breakages for the StorageVersionMigration (§2.3), ResourceQuota (§2.4) and Event (§2.7) cases: for
// each case, a target that gets exactly that case's rule wrong.
import { answer, editJson, jsonBody, statusBody, type Breakage, type ProxiedRequest, type ProxiedResponse } from '../helpers/broken-target.js';

const pathOnly = (r: ProxiedRequest) => r.path.split('?')[0]!;

interface KindPaths {
  kind: string;
  /** Matches the collection path (any namespace). */
  collection: RegExp;
}

const SVM: KindPaths = { kind: 'StorageVersionMigration', collection: /^\/apis\/storagemigration\.orch\.io\/v1\/storageversionmigrations$/ };
const RQ: KindPaths = { kind: 'ResourceQuota', collection: /^\/api\/v1\/namespaces\/[^/]+\/resourcequotas$/ };
const EV: KindPaths = { kind: 'Event', collection: /^\/apis\/events\.orch\.io\/v1\/namespaces\/[^/]+\/events$/ };

const collectionOf = (r: ProxiedRequest) => pathOnly(r).replace(/\/[^/]+(\/status)?$/, '');
const isCreate = (k: KindPaths) => (r: ProxiedRequest) => r.method === 'POST' && k.collection.test(pathOnly(r));
const isItemPut = (k: KindPaths) => (r: ProxiedRequest) => r.method === 'PUT' && !pathOnly(r).endsWith('/status') && k.collection.test(collectionOf(r));
const isStatusPut = (k: KindPaths) => (r: ProxiedRequest) => r.method === 'PUT' && pathOnly(r).endsWith('/status') && k.collection.test(collectionOf(r));
const isWrite = (k: KindPaths) => (r: ProxiedRequest) => isCreate(k)(r) || isItemPut(k)(r);

/** Edits the request body of the writes `when` selects. */
const editRequest = (when: (r: ProxiedRequest) => boolean, edit: (b: any) => void): Breakage => ({
  request: (r) => { if (when(r)) editJson(r, (b) => { if (b && typeof b === 'object') edit(b); }); },
});

/** Refuses the writes `when` selects whose body `refuse` picks, as a stricter server would. */
const refuseRequest = (when: (r: ProxiedRequest) => boolean, refuse: (b: any) => boolean, field: string, kind: string): Breakage => ({
  request: (r) => {
    const b = jsonBody(r);
    if (!when(r) || !b || !refuse(b)) return undefined;
    const message = `Invalid value: refused by a stricter server`;
    return answer(422, statusBody(422, 'Invalid', `${kind} "x" is invalid: ${field}: ${message}`, [{ field, reason: 'FieldValueInvalid', message }]));
  },
});

/** Rewrites objects of kind `k` in responses (single objects and list items). */
const editResponses = (k: KindPaths, edit: (o: any) => void): Breakage => ({
  response: (_r, res) => editJson(res, (o) => {
    if (o?.kind === k.kind) edit(o);
    if (Array.isArray(o?.items)) o.items.forEach((i: any) => edit(i));
  }),
});

/** Answers a PUT itself, as if it had been stored: how a server that allows a forbidden change looks. */
const acceptPut = (r: ProxiedRequest): ProxiedResponse => answer(200, r.body);

const notFound = () => answer(404, statusBody(404, 'NotFound', 'the server could not find the requested resource'));
/** The collection is not served at its §4.1 path (listing it is 404). */
const collectionNotServed = (k: KindPaths): Breakage => ({ request: (r) => (r.method === 'GET' && k.collection.test(pathOnly(r)) ? notFound() : undefined) });
/** Serves GET .../{name}/status as the object itself. */
const servesStatus = (k: KindPaths): Breakage => ({
  request: (r) => { if (r.method === 'GET' && pathOnly(r).endsWith('/status') && k.collection.test(collectionOf(r))) r.path = r.path.replace(/\/status(\?|$)/, '$1'); },
});

/**
 * Remembers `pick` of each created object (by name, from the create response) and answers PUTs
 * whose `pick` differs as if they had been stored.
 */
function allowChange(k: KindPaths, pick: (o: any) => unknown): Breakage {
  const created = new Map<string, string>();
  return {
    request: (r) => {
      if (!isItemPut(k)(r)) return undefined;
      const b = jsonBody(r);
      const name = pathOnly(r).split('/').pop()!;
      const was = created.get(decodeURIComponent(name));
      return was !== undefined && b && JSON.stringify(pick(b) ?? null) !== was ? acceptPut(r) : undefined;
    },
    response: (r, res) => {
      if (!isCreate(k)(r) || res.status >= 300) return;
      const o = jsonBody(res);
      if (o?.metadata?.name) created.set(o.metadata.name, JSON.stringify(pick(o) ?? null));
    },
  };
}

const conditionsOf = (b: any): any[] => (Array.isArray(b?.status?.conditions) ? b.status.conditions : []);
const isTrue = (b: any, type: string) => conditionsOf(b).some((c) => c?.type === type && c?.status === 'True');
const microNow = () => new Date().toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
const matchExpressions = (b: any): any[] => (Array.isArray(b?.spec?.scopeSelector?.matchExpressions) ? b.spec.scopeSelector.matchExpressions : []);
const SCOPES = ['BestEffort', 'CrossNamespacePodAffinity', 'NotBestEffort', 'NotTerminating', 'PriorityClass', 'Terminating', 'VolumeAttributesClass'];
const EXISTS_ONLY = ['BestEffort', 'NotBestEffort', 'Terminating', 'NotTerminating', 'CrossNamespacePodAffinity'];
const QUALIFIED = /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const DEPRECATED = ['deprecatedCount', 'deprecatedFirstTimestamp', 'deprecatedLastTimestamp', 'deprecatedSource'];

/** The value of a simple quantity (`1500m`, `2.5`), rounded up to a whole number. */
function roundUpQuantity(v: unknown): unknown {
  if (typeof v !== 'string') return v;
  const m = /^([0-9.]+)(m?)$/.exec(v);
  if (!m) return v;
  return String(Math.ceil(Number(m[1]) / (m[2] ? 1000 : 1)));
}

export const quotaEventBreakages: Record<string, Breakage> = {
  // ---- §2.3 StorageVersionMigration
  'api.storageversionmigration.collection-path': collectionNotServed(SVM),
  'api.storageversionmigration.no-status-subresource': servesStatus(SVM),
  'api.storageversionmigration.scope.cluster': {
    // Serves the object under a namespaced path too.
    request: (r) => { r.path = r.path.replace(/^\/apis\/storagemigration\.orch\.io\/v1\/namespaces\/[^/]+\/storageversionmigrations/, '/apis/storagemigration.orch.io/v1/storageversionmigrations'); },
  },
  'api.storageversionmigration.resource.required': editRequest(isCreate(SVM), (b) => {
    if (!b.spec?.resource) b.spec = { ...b.spec, resource: { group: 'apps', resource: 'deployments' } };
  }),
  'api.storageversionmigration.resource.resource-required': editRequest(isCreate(SVM), (b) => {
    if (b.spec?.resource && !b.spec.resource.resource) b.spec.resource.resource = 'deployments';
  }),
  'api.storageversionmigration.resource.round-trip': editResponses(SVM, (o) => { delete o.spec?.resource?.group; }),
  'api.storageversionmigration.resource.immutable': allowChange(SVM, (o) => o?.spec?.resource),
  'api.storageversionmigration.resource.immutable-message': {
    response: (r, res) => { if (isItemPut(SVM)(r) && res.status === 422) res.body = res.body.replace(/field is immutable/g, 'may not be changed'); },
  },
  'api.storageversionmigration.status.conditions.round-trip': editResponses(SVM, (o) => { delete o.status?.conditions; }),
  'api.storageversionmigration.status.conditions.unique-type': editRequest(isWrite(SVM), (b) => {
    if (!Array.isArray(b.status?.conditions)) return;
    const seen = new Set<string>();
    b.status.conditions = b.status.conditions.filter((c: any) => (seen.has(c?.type) ? false : (seen.add(c?.type), true)));
  }),
  'api.storageversionmigration.status.conditions.succeeded-failed-exclusive': editRequest(isWrite(SVM), (b) => {
    if (isTrue(b, 'Succeeded') && isTrue(b, 'Failed')) conditionsOf(b).forEach((c) => { if (c.type === 'Failed') c.status = 'False'; });
  }),
  'api.storageversionmigration.status.conditions.running-not-with-terminal': editRequest(isWrite(SVM), (b) => {
    if (isTrue(b, 'Running') && (isTrue(b, 'Succeeded') || isTrue(b, 'Failed'))) conditionsOf(b).forEach((c) => { if (c.type === 'Running') c.status = 'False'; });
  }),
  'api.storageversionmigration.status.conditions.terminal-final': {
    // Lets Succeeded and Failed go back to False.
    request: (r) => {
      if (!isItemPut(SVM)(r)) return undefined;
      const b = jsonBody(r);
      return conditionsOf(b).some((c) => ['Succeeded', 'Failed'].includes(c?.type) && c?.status === 'False') ? acceptPut(r) : undefined;
    },
  },
  'api.storageversionmigration.status.resource-version.round-trip': editResponses(SVM, (o) => { delete o.status?.resourceVersion; }),
  'api.storageversionmigration.status.resource-version.integer': editRequest(isWrite(SVM), (b) => {
    const rv = b.status?.resourceVersion;
    if (typeof rv === 'string' && rv !== '' && !/^[0-9]+$/.test(rv)) b.status.resourceVersion = '1';
  }),
  'api.storageversionmigration.status.resource-version.set-once': (() => {
    const set = new Map<string, string>();
    return {
      request: (r: ProxiedRequest) => {
        if (!isItemPut(SVM)(r)) return undefined;
        const was = set.get(pathOnly(r));
        const rv = jsonBody(r)?.status?.resourceVersion;
        return was && rv !== was ? acceptPut(r) : undefined;
      },
      response: (r: ProxiedRequest, res: ProxiedResponse) => {
        const rv = jsonBody(res)?.status?.resourceVersion;
        if (isItemPut(SVM)(r) && res.status < 300 && rv) set.set(pathOnly(r), rv);
      },
    };
  })(),

  // ---- §2.4 ResourceQuota
  'api.resourcequota.collection-path': collectionNotServed(RQ),
  // No status subresource: .../status is not found.
  'api.resourcequota.status-subresource': { request: (r) => (pathOnly(r).endsWith('/status') && RQ.collection.test(collectionOf(r)) ? notFound() : undefined) },
  'api.resourcequota.scope.namespaced': editResponses(RQ, (o) => { delete o.metadata?.namespace; }),
  'api.resourcequota.hard.round-trip': editResponses(RQ, (o) => {
    const keys = Object.keys(o.spec?.hard ?? {});
    if (keys.length > 1) delete o.spec.hard[keys[keys.length - 1]!];
  }),
  'api.resourcequota.hard.quantity-forms': refuseRequest(isCreate(RQ), (b) => Object.values(b.spec?.hard ?? {}).includes('.5'), 'spec.hard[cpu]', 'ResourceQuota'),
  'api.resourcequota.hard.quantity-invalid': editRequest(isCreate(RQ), (b) => {
    for (const [k, v] of Object.entries(b.spec?.hard ?? {})) if (['1.5.Gi', '1Gb', '', 'abc'].includes(v as string)) b.spec.hard[k] = '1';
  }),
  'api.resourcequota.hard.quantity-canonical': {
    // Stores quantities as sent (numbers as strings), without canonicalizing them.
    response: (r, res) => {
      const sent = isCreate(RQ)(r) ? jsonBody(r)?.spec?.hard : undefined;
      if (sent && res.status < 300) editJson(res, (o) => { o.spec.hard = Object.fromEntries(Object.entries(sent).map(([k, v]) => [k, String(v)])); });
    },
  },
  'api.resourcequota.hard.non-negative': editRequest(isCreate(RQ), (b) => {
    for (const [k, v] of Object.entries(b.spec?.hard ?? {})) if (typeof v === 'string') b.spec.hard[k] = v.replace(/^-/, '');
  }),
  'api.resourcequota.hard.resource-name-invalid': editRequest(isCreate(RQ), (b) => {
    for (const k of ['not a name!', 'widgets', 'storage']) delete b.spec?.hard?.[k];
  }),
  'api.resourcequota.hard.resource-name-qualified': refuseRequest(isCreate(RQ), (b) => Object.keys(b.spec?.hard ?? {}).some((k) => k.includes('/')), 'spec.hard', 'ResourceQuota'),
  'api.resourcequota.hard.integer-resources': editRequest(isCreate(RQ), (b) => {
    for (const k of Object.keys(b.spec?.hard ?? {})) if (k === 'pods' || k.includes('/')) b.spec.hard[k] = roundUpQuantity(b.spec.hard[k]);
  }),
  'api.resourcequota.scopes.allowed': refuseRequest(isCreate(RQ), (b) => (b.spec?.scopes ?? []).includes('VolumeAttributesClass'), 'spec.scopes', 'ResourceQuota'),
  'api.resourcequota.scopes.unsupported': editRequest(isCreate(RQ), (b) => {
    if (Array.isArray(b.spec?.scopes)) b.spec.scopes = b.spec.scopes.filter((s: string) => SCOPES.includes(s));
  }),
  'api.resourcequota.scopes.conflicting': editRequest(isCreate(RQ), (b) => {
    const drop = (names: string[]) => new Set(names.filter((n) => (n === 'NotBestEffort' && names.includes('BestEffort')) || (n === 'NotTerminating' && names.includes('Terminating'))));
    if (Array.isArray(b.spec?.scopes)) {
      const d = drop(b.spec.scopes);
      b.spec.scopes = b.spec.scopes.filter((s: string) => !d.has(s));
    }
    const exprs = matchExpressions(b);
    if (exprs.length) {
      const d = drop(exprs.map((e) => e?.scopeName));
      b.spec.scopeSelector.matchExpressions = exprs.filter((e) => !d.has(e?.scopeName));
    }
  }),
  'api.resourcequota.scopes.resources': editRequest(isCreate(RQ), (b) => { delete b.spec?.scopes; }),
  'api.resourcequota.scopes.immutable': allowChange(RQ, (o) => o?.spec?.scopes),
  'api.resourcequota.scope-selector.round-trip': editResponses(RQ, (o) => {
    const exprs = o.spec?.scopeSelector?.matchExpressions;
    if (Array.isArray(exprs)) o.spec.scopeSelector.matchExpressions = exprs.slice(0, 1);
  }),
  'api.resourcequota.scope-selector.operator-required': editRequest(isCreate(RQ), (b) => {
    matchExpressions(b).forEach((e) => { e.operator ??= 'In'; });
  }),
  'api.resourcequota.scope-selector.operator-allowed': refuseRequest(isCreate(RQ), (b) => matchExpressions(b).some((e) => e?.operator === 'DoesNotExist'), 'spec.scopeSelector.matchExpressions.operator', 'ResourceQuota'),
  'api.resourcequota.scope-selector.operator-unsupported': editRequest(isCreate(RQ), (b) => {
    matchExpressions(b).forEach((e) => { if (!['In', 'NotIn', 'Exists', 'DoesNotExist'].includes(e.operator)) e.operator = 'In'; });
  }),
  'api.resourcequota.scope-selector.scope-name-required': editRequest(isCreate(RQ), (b) => {
    matchExpressions(b).forEach((e) => { e.scopeName ??= 'PriorityClass'; });
  }),
  'api.resourcequota.scope-selector.scope-name-allowed': refuseRequest(isCreate(RQ), (b) => matchExpressions(b).some((e) => e?.scopeName === 'CrossNamespacePodAffinity'), 'spec.scopeSelector.matchExpressions.scopeName', 'ResourceQuota'),
  'api.resourcequota.scope-selector.scope-name-unsupported': editRequest(isCreate(RQ), (b) => {
    matchExpressions(b).forEach((e) => { if (!SCOPES.includes(e.scopeName)) e.scopeName = 'PriorityClass'; });
  }),
  'api.resourcequota.scope-selector.values-required': editRequest(isCreate(RQ), (b) => {
    matchExpressions(b).forEach((e) => { if (['In', 'NotIn'].includes(e.operator) && !e.values?.length) e.values = ['filled-in']; });
  }),
  'api.resourcequota.scope-selector.values-forbidden': editRequest(isCreate(RQ), (b) => {
    matchExpressions(b).forEach((e) => { if (['Exists', 'DoesNotExist'].includes(e.operator)) delete e.values; });
  }),
  'api.resourcequota.scope-selector.exists-only-scopes': editRequest(isCreate(RQ), (b) => {
    matchExpressions(b).forEach((e) => { if (EXISTS_ONLY.includes(e.scopeName)) { e.operator = 'Exists'; delete e.values; } });
  }),
  'api.resourcequota.status.hard-used': editResponses(RQ, (o) => { delete o.status?.used; }),
  // Accepts any status, storing none of it.
  'api.resourcequota.status.quantities': editRequest(isStatusPut(RQ), (b) => { b.status = {}; }),

  // ---- §2.7 Event
  'api.event.collection-path': collectionNotServed(EV),
  'api.event.no-status-subresource': servesStatus(EV),
  'api.event.scope.namespaced': editResponses(EV, (o) => { delete o.metadata?.namespace; }),
  'api.event.event-time.required': editRequest(isCreate(EV), (b) => { b.eventTime ??= microNow(); }),
  'api.event.action.required': editRequest(isCreate(EV), (b) => { if (!b.action) b.action = 'FilledIn'; }),
  'api.event.action.max-128': editRequest(isCreate(EV), (b) => { if (typeof b.action === 'string') b.action = b.action.slice(0, 128); }),
  'api.event.reason.required': editRequest(isCreate(EV), (b) => { if (!b.reason) b.reason = 'FilledIn'; }),
  'api.event.reason.max-128': editRequest(isCreate(EV), (b) => { if (typeof b.reason === 'string') b.reason = b.reason.slice(0, 128); }),
  'api.event.note.max-1kb': editRequest(isCreate(EV), (b) => { if (typeof b.note === 'string') b.note = b.note.slice(0, 1024); }),
  'api.event.type.allowed': refuseRequest(isCreate(EV), (b) => b.type === 'Warning', 'type', 'Event'),
  'api.event.type.other-rejected': editRequest(isCreate(EV), (b) => { if (b.type && !['Normal', 'Warning'].includes(b.type)) b.type = 'Normal'; }),
  'api.event.type.required': editRequest(isCreate(EV), (b) => { if (!b.type) b.type = 'Normal'; }),
  'api.event.regarding.round-trip': editResponses(EV, (o) => { delete o.regarding?.fieldPath; }),
  'api.event.regarding.namespace': {
    request: (r) => {
      if (!isCreate(EV)(r)) return;
      const ns = pathOnly(r).split('/')[5];
      editJson(r, (b) => { if (b.regarding && !b.regarding.namespace) b.regarding.namespace = ns; });
    },
  },
  // Makes related required.
  'api.event.related.optional': refuseRequest(isCreate(EV), (b) => !b.related, 'related', 'Event'),
  'api.event.reporting-controller.required': editRequest(isCreate(EV), (b) => { if (!b.reportingController) b.reportingController = 'filled-in.orch.io/controller'; }),
  'api.event.reporting-controller.qualified-name': editRequest(isCreate(EV), (b) => {
    if (typeof b.reportingController === 'string' && !QUALIFIED.test(b.reportingController)) b.reportingController = 'filled-in.orch.io/controller';
  }),
  'api.event.reporting-instance.required': editRequest(isCreate(EV), (b) => { if (!b.reportingInstance) b.reportingInstance = 'filled-in'; }),
  'api.event.reporting-instance.max-128': editRequest(isCreate(EV), (b) => {
    if (typeof b.reportingInstance === 'string') b.reportingInstance = b.reportingInstance.slice(0, 128);
  }),
  // Gives singleton events a series of one.
  'api.event.series.singleton': editResponses(EV, (o) => { o.series ??= { count: 1, lastObservedTime: o.eventTime }; }),
  'api.event.series.count-required': editRequest(isCreate(EV), (b) => { if (b.series) b.series.count ??= 2; }),
  'api.event.series.count-min-2': editRequest(isCreate(EV), (b) => { if (b.series && b.series.count < 2) b.series.count = 2; }),
  'api.event.series.last-observed-time-required': editRequest(isCreate(EV), (b) => { if (b.series) b.series.lastObservedTime ??= microNow(); }),
  // Drops the deprecated fields silently, as a server that does not know them.
  'api.event.deprecated-fields.known': editRequest(isCreate(EV), (b) => { for (const f of DEPRECATED) delete b[f]; }),
  'api.event.deprecated-fields.unset-on-create': editRequest(isCreate(EV), (b) => { for (const f of DEPRECATED) delete b[f]; }),
  'api.event.update.immutable': allowChange(EV, (o) => [o?.reason, o?.note, o?.action]),
};
