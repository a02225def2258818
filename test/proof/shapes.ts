// Breakages for the field-shape cases (suites/000-control-plane/2-field-shapes.ts): per kind, a target
// that serves one field of the kind with the wrong JSON type (or without a required field), in every
// object it returns: write answers, reads, list items and watch event objects. The MUST case's field
// is one whose type spec §2 states; the SHOULD (`.upstream`) case's one whose type it leaves "not shown".
import { editJson, type Breakage } from '../helpers/broken-target.js';

type Edit = (o: any) => void;

/** Every object of `kind` the target returns, edited: a single object, each list item, each watch event's object. */
function objectsOf(kind: string, edit: Edit): Breakage {
  const each = (v: any) => {
    if (v?.kind === kind && v.metadata) edit(v);
    // List items need not carry their kind (upstream's do not).
    else if (v?.kind === `${kind}List` && Array.isArray(v.items)) v.items.forEach(edit);
  };
  return {
    response: (_r, res) => editJson(res, each),
    watchLine: (_r, line) => {
      const holder = { body: line };
      editJson(holder, (e) => each(e?.object));
      return holder.body;
    },
  };
}

/** Every list of `kind` the target returns, edited. */
function listsOf(kind: string, edit: Edit): Breakage {
  return { response: (_r, res) => editJson(res, (o) => { if (o?.kind === `${kind}List`) edit(o); }) };
}

const asNumber = (s: unknown) => (typeof s === 'string' && /^\d+$/.test(s) ? Number(s) : 12345);
const eachRule = (o: any, edit: Edit) => { if (Array.isArray(o.rules)) o.rules.forEach(edit); };

export const shapeBreakages: Record<string, Breakage> = {
  // ---- The types spec §2 states (MUST).
  'api.shape.storageclass': objectsOf('StorageClass', (o) => { o.provisioner = 42; }),
  'api.shape.storageversionmigration': objectsOf('StorageVersionMigration', (o) => { if (o.spec?.resource) o.spec.resource = `${o.spec.resource.resource}.${o.spec.resource.group}`; }),
  'api.shape.resourcequota': objectsOf('ResourceQuota', (o) => { if (o.spec?.hard) o.spec.hard = Object.entries(o.spec.hard).map(([k, v]) => `${k}=${v}`); }),
  'api.shape.evictionrequest': objectsOf('EvictionRequest', (o) => { if (o.spec) o.spec.intent = o.spec.intent === 'Eviction'; }),
  // An integer with a fraction is no integer.
  'api.shape.podgroup': objectsOf('PodGroup', (o) => { if (o.spec?.schedulingPolicy?.gang) o.spec.schedulingPolicy.gang.minCount += 0.5; }),
  // eventTime* left out: a required field missing.
  'api.shape.event': objectsOf('Event', (o) => { delete o.eventTime; }),
  'api.shape.clusterrole': objectsOf('ClusterRole', (o) => { o.rules = { ...o.rules }; }),
  // §2.1 for the kinds whose own fields the spec does not show: apiVersion a string, items* present, ListMeta an object.
  'api.shape.clusterrolebinding': objectsOf('ClusterRoleBinding', (o) => { o.apiVersion = 1; }),
  'api.shape.role': listsOf('Role', (o) => { delete o.items; }),
  'api.shape.rolebinding': listsOf('RoleBinding', (o) => { o.metadata = String(o.metadata?.resourceVersion ?? ''); }),

  // ---- The types spec §2 leaves "not shown", as upstream serves them (SHOULD).
  'api.shape.storageclass.upstream': objectsOf('StorageClass', (o) => { o.metadata.generation = String(o.metadata.generation ?? 1); }),
  'api.shape.storageversionmigration.upstream': objectsOf('StorageVersionMigration', (o) => { if (o.spec?.resource) o.spec.resource.group = 0; }),
  // A quantity as a JSON number: a legal input, never what upstream writes.
  'api.shape.resourcequota.upstream': objectsOf('ResourceQuota', (o) => { for (const k of Object.keys(o.spec?.hard ?? {})) o.spec.hard[k] = asNumber(o.spec.hard[k]); }),
  'api.shape.evictionrequest.upstream': objectsOf('EvictionRequest', (o) => { o.metadata.creationTimestamp = Date.parse(o.metadata.creationTimestamp) || 0; }),
  'api.shape.podgroup.upstream': objectsOf('PodGroup', (o) => { o.metadata.resourceVersion = asNumber(o.metadata.resourceVersion); }),
  // MicroTime as seconds since the epoch.
  'api.shape.event.upstream': objectsOf('Event', (o) => { o.eventTime = Math.floor((Date.parse(o.eventTime) || 0) / 1000); }),
  'api.shape.clusterrole.upstream': objectsOf('ClusterRole', (o) => eachRule(o, (r) => { r.verbs = (r.verbs ?? []).join(','); })),
  // roleRef left out: required upstream.
  'api.shape.clusterrolebinding.upstream': objectsOf('ClusterRoleBinding', (o) => { delete o.roleRef; }),
  'api.shape.role.upstream': objectsOf('Role', (o) => eachRule(o, (r) => { r.apiGroups = (r.apiGroups ?? []).join(','); })),
  'api.shape.rolebinding.upstream': objectsOf('RoleBinding', (o) => { if (Array.isArray(o.subjects)) for (const s of o.subjects) s.name = 7; }),
};
