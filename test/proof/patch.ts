// Breakages for the patch and apply cases (suites/000-control-plane/4.2-patch.ts, 4.2-apply.ts): for
// each, a target that gets exactly that rule wrong.
import { KINDS, type ResourceKind } from '../../suites/000-control-plane/kinds.js';
import { answer, editJson, jsonBody, statusBody, type Breakage, type ProxiedRequest } from '../helpers/broken-target.js';

const JSON_PATCH = 'application/json-patch+json';
const MERGE_PATCH = 'application/merge-patch+json';
const STRATEGIC = 'application/strategic-merge-patch+json';
const APPLY = 'application/apply-patch+yaml';
const PATCH_TYPES = [JSON_PATCH, MERGE_PATCH, STRATEGIC, APPLY];

const pathOnly = (r: ProxiedRequest) => r.path.split('?')[0]!;
const mediaType = (r: ProxiedRequest) => (r.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
const isPatch = (r: ProxiedRequest, type?: string) => r.method === 'PATCH' && (type === undefined || mediaType(r) === type);
const params = (r: ProxiedRequest) => new URLSearchParams(r.path.includes('?') ? r.path.slice(r.path.indexOf('?') + 1) : '');

function setParams(r: ProxiedRequest, edit: (q: URLSearchParams) => void): void {
  const q = params(r);
  edit(q);
  const s = q.toString();
  r.path = s ? `${pathOnly(r)}?${s}` : pathOnly(r);
}

/** Rewrites every object and list of a JSON value, depth first. */
function walk(v: unknown, edit: (o: Record<string, unknown> | unknown[]) => void): void {
  if (Array.isArray(v)) {
    v.forEach((x) => walk(x, edit));
    edit(v);
  } else if (v && typeof v === 'object') {
    Object.values(v).forEach((x) => walk(x, edit));
    edit(v as Record<string, unknown>);
  }
}

/** A strategic merge patch server that ignores the keys (or list items) `drop` picks. */
function ignoresInStrategic(drop: { key?: (k: string, v: unknown) => boolean; item?: (item: any) => boolean }): Breakage {
  return {
    request: (r) => {
      if (!isPatch(r, STRATEGIC)) return;
      editJson(r, (b) => {
        walk(b, (o) => {
          if (Array.isArray(o)) {
            if (drop.item) for (let i = o.length - 1; i >= 0; i--) if (drop.item(o[i])) o.splice(i, 1);
          } else if (drop.key) {
            for (const [k, v] of Object.entries(o)) if (drop.key(k, v)) delete o[k];
          }
        });
      });
    },
  };
}

/** A server that treats strategic merge patches as JSON merge patches (no field strategies). */
const strategicAsMerge: Breakage = {
  request: (r) => {
    if (isPatch(r, STRATEGIC)) r.headers['content-type'] = MERGE_PATCH;
  },
};

const invalidOptions = (kind: string, field: string, reason: string, message: string) =>
  answer(422, statusBody(422, 'Invalid', `${kind}.meta.orch.io "" is invalid: ${field}: ${message}`, [{ field, reason, message }]));

function perKind(k: ResourceKind): Record<string, Breakage> {
  const id = (s: string) => `api.${k.kind.toLowerCase()}.${s}`;
  const mine = (r: ProxiedRequest) => pathOnly(r).includes(`/${k.plural}/`);
  return {
    // Accepts a strategic merge patch but applies nothing.
    [id('patch.strategic')]: { request: (r) => { if (isPatch(r, STRATEGIC) && mine(r)) r.body = '{}'; } },
    // Accepts a JSON patch but applies nothing.
    [id('patch.json')]: { request: (r) => { if (isPatch(r, JSON_PATCH) && mine(r)) r.body = '[]'; } },
    // Has no server-side apply for the kind.
    [id('apply')]: {
      request: (r) => (isPatch(r, APPLY) && mine(r) ? answer(415, statusBody(415, 'UnsupportedMediaType', 'the body of the request was in an unknown format - accepted media types include: application/merge-patch+json')) : undefined),
    },
  };
}

/** A server whose apply keeps what a manager applied before: configurations only ever add fields. */
function neverRemoves(): Breakage {
  const last = new Map<string, any>();
  const deepMerge = (a: any, b: any): any => {
    if (!a || typeof a !== 'object' || Array.isArray(a) || !b || typeof b !== 'object' || Array.isArray(b)) return b === undefined ? a : b;
    const out = { ...a };
    for (const [k, v] of Object.entries(b)) out[k] = deepMerge(a[k], v);
    return out;
  };
  return {
    request: (r) => {
      if (!isPatch(r, APPLY)) return;
      const key = `${pathOnly(r)}|${params(r).get('fieldManager') ?? ''}`;
      const body = jsonBody(r);
      if (!body) return;
      const merged = deepMerge(last.get(key), body);
      last.set(key, merged);
      r.body = JSON.stringify(merged);
    },
  };
}

/** A server whose strategic merge patch unions ResourceQuota scope selector values (remembered from the create). */
function unionsScopeValues(): Breakage {
  const values = new Map<string, string[]>();
  return {
    request: (r) => {
      if (!pathOnly(r).includes('/resourcequotas')) return;
      if (r.method === 'POST') {
        const b = jsonBody(r);
        const v = b?.spec?.scopeSelector?.matchExpressions?.[0]?.values;
        if (b?.metadata?.name && Array.isArray(v)) values.set(b.metadata.name, v);
      } else if (isPatch(r, STRATEGIC)) {
        const before = values.get(pathOnly(r).split('/').pop()!) ?? [];
        editJson(r, (b) => {
          const e = b?.spec?.scopeSelector?.matchExpressions?.[0];
          if (e && Array.isArray(e.values)) e.values = [...new Set([...before, ...e.values])];
        });
      }
    },
  };
}

/** Merges StorageClass mountOptions under strategic merge patch (a list upstream replaces). */
function unionsMountOptions(): Breakage {
  const options = new Map<string, string[]>();
  return {
    request: (r) => {
      if (!pathOnly(r).includes('/storageclasses')) return;
      if (r.method === 'POST') {
        const b = jsonBody(r);
        if (b?.metadata?.name && Array.isArray(b.mountOptions)) options.set(b.metadata.name, b.mountOptions);
      } else if (isPatch(r, STRATEGIC)) {
        const before = options.get(pathOnly(r).split('/').pop()!) ?? [];
        editJson(r, (b) => { if (Array.isArray(b?.mountOptions)) b.mountOptions = [...new Set([...before, ...b.mountOptions])]; });
      }
    },
  };
}

export const patchBreakages: Record<string, Breakage> = {
  ...Object.fromEntries(KINDS.flatMap((k) => Object.entries(perKind(k)))),

  // Content types.
  'api.patch.content-types.unsupported': {
    request: (r) => { if (isPatch(r) && !PATCH_TYPES.includes(mediaType(r))) r.headers['content-type'] = MERGE_PATCH; },
  },
  'api.patch.json-patch.test-failure': {
    // Skips test operations.
    request: (r) => { if (isPatch(r, JSON_PATCH)) editJson(r, (ops) => (Array.isArray(ops) ? ops.filter((o: any) => o?.op !== 'test') : ops)); },
  },
  'api.patch.merge-patch.rfc7386': {
    // Ignores null in merge patches (nothing is ever deleted).
    request: (r) => {
      if (isPatch(r, MERGE_PATCH)) editJson(r, (b) => walk(b, (o) => { if (!Array.isArray(o)) for (const [k, v] of Object.entries(o)) if (v === null) delete o[k]; }));
    },
  },

  // Strategies the spec gives fields.
  'api.patch.strategic.storageversionmigration-conditions-merge-type': strategicAsMerge,
  'api.patch.strategic.evictionrequest-conditions-merge-type': strategicAsMerge,
  'api.patch.strategic.podgroup-conditions-merge-type': strategicAsMerge,
  'api.patch.strategic.podgroup-resource-claims-merge-name': strategicAsMerge,
  'api.patch.strategic.podgroup-claim-statuses-merge-name': strategicAsMerge,
  'api.patch.strategic.podgroup-claim-statuses-retain-keys': ignoresInStrategic({ key: (k) => k === '$retainKeys' }),
  'api.patch.strategic.quota-scope-values-replaced': unionsScopeValues(),
  'api.patch.strategic.unkeyed-list-replaced': unionsMountOptions(),

  // ObjectMeta.
  'api.patch.strategic.finalizers-merge': strategicAsMerge,
  'api.patch.strategic.owner-references-merge-uid': strategicAsMerge,
  'api.patch.strategic.labels-merge': ignoresInStrategic({ key: (_k, v) => v === null }),

  // Directives, each ignored.
  'api.patch.strategic.directive-delete': ignoresInStrategic({ item: (i) => i?.$patch === 'delete' }),
  'api.patch.strategic.directive-replace-list': ignoresInStrategic({ item: (i) => i?.$patch === 'replace' }),
  'api.patch.strategic.directive-replace-map': ignoresInStrategic({ key: (k) => k === '$patch' }),
  'api.patch.strategic.directive-delete-from-primitive-list': ignoresInStrategic({ key: (k) => k.startsWith('$deleteFromPrimitiveList/') }),
  'api.patch.strategic.directive-set-element-order': ignoresInStrategic({ key: (k) => k.startsWith('$setElementOrder/') }),
  'api.patch.strategic.directive-unknown': ignoresInStrategic({ key: (k, v) => k === '$patch' && v !== 'replace' && v !== 'delete' && v !== 'merge' }),

  // force and fieldManager.
  'api.patch.force.non-apply': {
    // Ignores force on non-apply patches.
    request: (r) => { if (isPatch(r) && mediaType(r) !== APPLY) setParams(r, (q) => q.delete('force')); },
  },
  'api.patch.force.non-apply-message': {
    request: (r) => (isPatch(r) && mediaType(r) !== APPLY && params(r).has('force') ? answer(400, statusBody(400, 'BadRequest', 'force is not allowed')) : undefined),
  },
  'api.patch.field-manager.optional-non-apply': {
    request: (r) => (isPatch(r) && mediaType(r) !== APPLY && !params(r).get('fieldManager')
      ? invalidOptions('PatchOptions', 'fieldManager', 'FieldValueRequired', 'Required value: is required') : undefined),
  },
  'api.write.field-manager.length': {
    // Accepts any length: drops a long fieldManager.
    request: (r) => setParams(r, (q) => { if ((q.get('fieldManager') ?? '').length >= 128) q.delete('fieldManager'); }),
  },
  'api.write.field-manager.too-long-status': {
    request: (r) => ((params(r).get('fieldManager') ?? '').length >= 128 ? answer(400, statusBody(400, 'BadRequest', 'fieldManager is too long')) : undefined),
  },
  'api.write.field-manager.printable': {
    // Accepts control characters: strips them.
    request: (r) => setParams(r, (q) => { const m = q.get('fieldManager'); if (m) q.set('fieldManager', m.replace(/[\u0000-\u001f\u007f]/g, '')); }),
  },

  // Apply.
  'api.apply.creates': {
    // Apply only patches existing objects.
    request: (r) => (isPatch(r, APPLY) ? answer(404, statusBody(404, 'NotFound', 'storageclasses.storage.orch.io "x" not found')) : undefined),
  },
  'api.apply.field-manager-required': {
    request: (r) => { if (isPatch(r, APPLY) && !params(r).get('fieldManager')) setParams(r, (q) => q.set('fieldManager', 'defaulted-by-proxy')); },
  },
  'api.apply.field-manager-required-status': {
    request: (r) => (isPatch(r, APPLY) && !params(r).get('fieldManager') ? answer(400, statusBody(400, 'BadRequest', 'fieldManager is required')) : undefined),
  },
  // Never reports conflicts: every apply is forced.
  'api.apply.conflict': { request: (r) => { if (isPatch(r, APPLY)) setParams(r, (q) => q.set('force', 'true')); } },
  'api.apply.conflict-with-update': { request: (r) => { if (isPatch(r, APPLY)) setParams(r, (q) => q.set('force', 'true')); } },
  // Ignores force.
  'api.apply.force': { request: (r) => { if (isPatch(r, APPLY)) setParams(r, (q) => q.delete('force')); } },
  'api.apply.force.over-update': { request: (r) => { if (isPatch(r, APPLY)) setParams(r, (q) => q.delete('force')); } },
  'api.apply.removes-dropped-fields': neverRemoves(),
  'api.apply.managed-fields.apply-entry': {
    // Records applies as updates.
    response: (r, res) => { if (isPatch(r, APPLY)) editJson(res, (o) => o?.metadata?.managedFields?.forEach((e: any) => { e.operation = 'Update'; })); },
  },
  'api.apply.managed-fields.list-items': {
    // Names list items by index.
    response: (r, res) => {
      if (!isPatch(r, APPLY)) return;
      editJson(res, (o) => o?.metadata?.managedFields?.forEach((e: any) => walk(e.fieldsV1, (n) => {
        if (Array.isArray(n)) return;
        let i = 0;
        for (const k of Object.keys(n)) if (k.startsWith('k:') || k.startsWith('v:')) { n[`i:${i++}`] = n[k]; delete n[k]; }
      })));
    },
  },
  'api.apply.managed-fields.update-entries': {
    // Loses managedFields on a PUT that does not carry them.
    request: (r) => { if (r.method === 'PUT') editJson(r, (b) => { if (b?.metadata && !b.metadata.managedFields) b.metadata.managedFields = [{}]; }); },
  },
  'api.apply.managed-fields.default-manager': {
    // Does not look at the User-Agent.
    request: (r) => { delete r.headers['user-agent']; },
  },
};
