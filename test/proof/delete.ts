// Breakages for the delete cases (suites/000-control-plane/4.3-delete.ts): a target that gets one
// DeleteOptions rule or one propagation policy wrong. Only DELETEs of the cases' own kinds (Roles,
// ResourceQuotas) are touched, so the runner's cleanup of the run namespace still works.
import { answer, editJson, jsonBody, statusBody, type Breakage, type ProxiedRequest } from '../helpers/broken-target.js';

const UNSAFE = 'ignoreStoreReadErrorWithClusterBreakingPotential';

const pathOnly = (r: ProxiedRequest): string => r.path.split('?')[0]!;
const params = (r: ProxiedRequest): URLSearchParams => new URLSearchParams(r.path.includes('?') ? r.path.slice(r.path.indexOf('?') + 1) : '');
/** A DELETE of one Role or ResourceQuota (not a collection, not a namespace). */
const isItemDelete = (r: ProxiedRequest, resource?: 'roles' | 'resourcequotas'): boolean =>
  r.method === 'DELETE' && new RegExp(`/namespaces/[^/]+/(${resource ?? 'roles|resourcequotas'})/[^/]+$`).test(pathOnly(r));

/** Rewrites the query of the request in place. */
function editQuery(r: ProxiedRequest, edit: (q: URLSearchParams) => void): void {
  const q = params(r);
  edit(q);
  const text = q.toString();
  r.path = text ? `${pathOnly(r)}?${text}` : pathOnly(r);
}

/** The request asks for no propagation at all (no query policy, no body): the server's default applies. */
const noPolicy = (r: ProxiedRequest): boolean => !params(r).has('propagationPolicy') && !params(r).has('orphanDependents') && !r.body;

/** A server that reads a propagationPolicy and carries out another one. */
function swapPolicy(from: string, to: string): Breakage {
  return {
    request: (r) => {
      if (isItemDelete(r) && params(r).get('propagationPolicy') === from) editQuery(r, (q) => q.set('propagationPolicy', to));
    },
  };
}

/** A server that answers such a DELETE with the object but keeps it (reads instead of deleting). */
function keepInstead(when: (r: ProxiedRequest) => boolean): Breakage {
  return {
    request: (r) => {
      if (isItemDelete(r, 'roles') && when(r)) {
        r.method = 'GET';
        r.body = '';
        editQuery(r, (q) => { for (const k of [...q.keys()]) q.delete(k); });
      }
    },
  };
}

/** A DELETE of a whole Role or StorageClass collection. */
const isCollectionDelete = (r: ProxiedRequest): boolean => r.method === 'DELETE' && /(\/namespaces\/[^/]+\/roles|\/storageclasses)$/.test(pathOnly(r));

/** Keeps only the run label of a delete collection's labelSelector: the case's other objects go too. */
const widenLabelSelector: Breakage = {
  request: (r) => {
    const sel = params(r).get('labelSelector');
    if (isCollectionDelete(r) && sel) editQuery(r, (q) => q.set('labelSelector', sel.split(',').filter((t) => t.startsWith('conformance.orch.io/run=')).join(',')));
  },
};

export const deleteBreakages: Record<string, Breakage> = {
  'api.delete.options.body': {
    // Ignores DeleteOptions bodies.
    request: (r) => { if (isItemDelete(r)) r.body = ''; },
  },
  'api.delete.query-set': {
    // Does not know one member of the delete set.
    request: (r) => isItemDelete(r) && params(r).has(UNSAFE)
      ? answer(400, statusBody(400, 'BadRequest', `unknown query parameter ${UNSAFE}`))
      : undefined,
  },
  'api.delete.preconditions.uid': {
    request: (r) => { if (isItemDelete(r) && r.body) editJson(r, (b) => { delete b.preconditions; }); },
  },
  'api.delete.preconditions.resource-version': {
    request: (r) => { if (isItemDelete(r) && r.body) editJson(r, (b) => { delete b.preconditions; }); },
  },
  'api.delete.grace-period.negative': {
    // Treats a negative grace period as 0 instead of refusing it.
    request: (r) => { if (isItemDelete(r) && Number(params(r).get('gracePeriodSeconds')) < 0) editQuery(r, (q) => q.set('gracePeriodSeconds', '0')); },
  },
  'api.delete.grace-period.zero': keepInstead((r) => params(r).get('gracePeriodSeconds') === '0'),
  'api.delete.grace-period.default': keepInstead((r) => !params(r).has('gracePeriodSeconds') && !r.body),
  'api.delete.ignore-store-read-error.false': {
    // Reads the boolean the wrong way round.
    request: (r) => { if (isItemDelete(r) && params(r).get(UNSAFE) === 'false') editQuery(r, (q) => q.set(UNSAFE, 'true')); },
  },
  'api.delete.ignore-store-read-error.readable-object': {
    // Ignores the option: a normal delete.
    request: (r) => { if (isItemDelete(r)) editQuery(r, (q) => q.delete(UNSAFE)); },
  },
  'api.delete.orphan-dependents.true': {
    request: (r) => { if (isItemDelete(r)) editQuery(r, (q) => q.delete('orphanDependents')); },
  },
  'api.delete.orphan-dependents.true-orphans-dependents': {
    request: (r) => { if (isItemDelete(r)) editQuery(r, (q) => q.delete('orphanDependents')); },
  },
  'api.delete.propagation-policy.values': {
    // Knows only two of the three policies.
    request: (r) => (isItemDelete(r) && params(r).get('propagationPolicy') === 'Foreground'
      ? answer(422, statusBody(422, 'Invalid', 'propagationPolicy: Unsupported value: "Foreground"'))
      : undefined),
  },
  'api.delete.orphan-dependents.false': {
    request: (r) => { if (isItemDelete(r)) editQuery(r, (q) => q.delete('orphanDependents')); },
  },
  'api.delete.orphan-and-propagation.refused': {
    // Lets orphanDependents win silently.
    request: (r) => { if (isItemDelete(r) && params(r).has('orphanDependents')) editQuery(r, (q) => q.delete('propagationPolicy')); },
  },
  'api.delete.orphan-and-propagation.message': {
    // Refuses the combination, but not as upstream does.
    request: (r) => {
      const b = isItemDelete(r) ? jsonBody(r) : undefined;
      return b && b.orphanDependents !== undefined && b.propagationPolicy !== undefined
        ? answer(400, statusBody(400, 'BadRequest', 'only one of orphanDependents and propagationPolicy may be given'))
        : undefined;
    },
  },
  'api.delete.propagation-policy.unsupported': {
    request: (r) => {
      const p = params(r).get('propagationPolicy');
      if (isItemDelete(r) && p !== null && !['Orphan', 'Background', 'Foreground'].includes(p)) editQuery(r, (q) => q.set('propagationPolicy', 'Background'));
    },
  },
  'api.delete.gc.background': swapPolicy('Background', 'Orphan'),
  'api.delete.gc.foreground': swapPolicy('Foreground', 'Background'),
  'api.delete.gc.orphan': swapPolicy('Orphan', 'Background'),
  'api.delete.propagation-policy.default-background': {
    // Defaults to orphaning.
    request: (r) => { if (isItemDelete(r, 'resourcequotas') && noPolicy(r)) editQuery(r, (q) => q.set('propagationPolicy', 'Orphan')); },
  },
  'api.delete.propagation-policy.default-from-finalizer': {
    // Ignores the object's finalizers: always Background by default.
    request: (r) => { if (isItemDelete(r, 'resourcequotas') && noPolicy(r)) editQuery(r, (q) => q.set('propagationPolicy', 'Background')); },
  },
  'api.delete.collection.label-selector': widenLabelSelector,
  'api.delete.collection.label-selector-cluster-scoped': widenLabelSelector,
  'api.delete.collection.field-selector': {
    // Reads `=` as `!=`: everything but the selected object goes.
    request: (r) => {
      const sel = params(r).get('fieldSelector');
      if (isCollectionDelete(r) && sel) editQuery(r, (q) => q.set('fieldSelector', sel.replace(/([^!])=/, '$1!=')));
    },
  },
};
