// The pod subresources that act instead of storing (upstream pkg/registry/core/pod/storage: BindingREST,
// LegacyBindingREST, EvictionREST): `POST pods/{name}/binding` assigns a pending pod to a node (what
// a scheduler calls), the legacy `POST bindings` does the same with the pod named in the body, and
// `POST pods/{name}/eviction` deletes a pod the way disruption-aware clients ask for it (kubectl
// drain, the eviction-request controller's imperative evictor). Both answer 201 with a Success
// Status. They live next to the pod kind (not in the generic apiserver) because every rule here is
// about pods; the handler only routes to them (strategy `subresources`, `answerCreate`).
//
// Writes are guarded read-modify-writes (ResourceStore.guaranteedUpdate, upstream's
// GuaranteedUpdate): retried on a concurrent write, never a lost update. Like upstream they skip the
// pod strategy's update rules (spec.nodeName is otherwise immutable) and record no managedFields.
import { badRequest, conflict, invalid, notFound, type Status } from '../apiserver/errors.js';
import { fieldErrors, type FieldError } from '../apiserver/field-errors.js';
import { checkDeletePreconditions, deleteOptionsFromBody, storeDeleteOptions, validateDeleteOptions, type RequestDeleteOptions } from '../apiserver/delete-options.js';
import { isDryRun } from '../apiserver/dry-run.js';
import type { Registry } from '../apiserver/registry.js';
import { deleteOptionsSchema } from '../apiserver/meta-schemas.js';
import { normalizeObject, objectMetaSchema, t, type Properties } from '../apiserver/schema.js';
import { objectReferenceSchema } from './object-reference.js';
import { nowRFC3339, type ResourceStore } from '../apiserver/store.js';
import { defineStrategy, type ActionRequest, type ApiObject, type CreateSubresource, type ReadSubresource, type ResourceStrategy } from '../apiserver/strategy.js';
import { podLogSubresource } from './pod-log.js';

interface Binding extends ApiObject {
  target?: { kind?: string; name?: string };
}

interface Eviction extends ApiObject {
  deleteOptions?: Record<string, unknown>;
}

interface PodCondition {
  type?: string;
  status?: string;
  lastProbeTime?: string;
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

interface Pod extends ApiObject {
  spec?: { nodeName?: string; schedulingGates?: unknown[] };
  status?: { phase?: string; conditions?: PodCondition[] };
}

/** Upstream ValidatePodBinding. */
function validateBinding(o: ApiObject): FieldError[] {
  const target = (o as Binding).target ?? {};
  const errs: FieldError[] = [];
  if (target.kind && target.kind !== 'Node') errs.push(fieldErrors.notSupported('target.kind', target.kind, ['Node', '<empty>']));
  if (!target.name) errs.push(fieldErrors.required('target.name'));
  return errs;
}

/**
 * core/v1 Binding: served as the legacy create-only `bindings` collection (never stored: a POST binds
 * the pod named in its metadata) and the body of `pods/{name}/binding`.
 */
export const bindingStrategy = defineStrategy({
  group: '',
  version: 'v1',
  kind: 'Binding',
  resource: 'bindings',
  singular: 'binding',
  namespaced: true,
  hasStatus: false,
  verbs: ['create'],
  notStored: true,
  deleteResponse: 'status',
  description: 'Binds a pod to a node: what a scheduler posts to assign a pending pod.',
  required: ['target'],
  schema: { target: t.describe(objectReferenceSchema, 'The node to bind to (kind Node or empty, and its name).') },
  validate: validateBinding,
  answerCreate: (req: ActionRequest) => bindPod({ ...req, name: undefined }),
});

/** policy/v1 Eviction: only ever the body of `pods/{name}/eviction` (the policy group is not served). */
export const evictionBodyStrategy = defineStrategy({
  group: 'policy',
  version: 'v1',
  kind: 'Eviction',
  resource: 'evictions',
  singular: 'eviction',
  namespaced: true,
  hasStatus: false,
  verbs: ['create'],
  notStored: true,
  deleteResponse: 'status',
  description: 'Asks for a pod to be deleted the way disruption-aware clients do (kubectl drain): the body of the pod eviction subresource.',
  schema: { deleteOptions: t.describe(deleteOptionsSchema, 'Options of the pod deletion; the TypeMeta fields are optional here.') },
  validate: (): FieldError[] => [],
});

/** The pod subresources beside status (the pod strategy's `subresources`). */
export const POD_SUBRESOURCES: Readonly<Record<string, CreateSubresource>> = {
  binding: { body: bindingStrategy, create: (req) => bindPod(req) },
  // kubectl drain and client-go send policy/v1; older clients policy/v1beta1, which is the same shape.
  eviction: { body: evictionBodyStrategy, otherVersions: ['policy/v1beta1'], create: (req) => evictPod(req) },
};

/** pods/exec, attach and portforward, served by reference/apiserver/pod-streaming.ts: discovery's view (upstream's). */
export const POD_CONNECT_SUBRESOURCES = {
  attach: { kind: 'PodAttachOptions', verbs: ['create', 'get'] },
  exec: { kind: 'PodExecOptions', verbs: ['create', 'get'] },
  portforward: { kind: 'PodPortForwardOptions', verbs: ['create', 'get'] },
} as const;

/** The pod subresources read with GET that stream their answer (pod-log.ts). */
export const POD_READ_SUBRESOURCES: Readonly<Record<string, ReadSubresource>> = { log: podLogSubresource };

export const POD_SCHEDULED = 'PodScheduled';
export const DISRUPTION_TARGET = 'DisruptionTarget';
export const EVICTION_BY_EVICTION_API = 'EvictionByEvictionAPI';
export const EVICTION_MESSAGE = 'Eviction API: evicting';

/** The created answer: upstream returns `Status{Status: Success}` and the create handler fills the code. */
function created(): Status {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 };
}

function podsOf(registry: Registry): ResourceStore {
  const pods = registry.byGroupResource('', 'pods');
  if (!pods) throw new Error('pods are not served');
  return pods;
}

/** The body shaped by its kind's schema (422 naming every mistyped field), metadata included. */
function decode<T extends ApiObject>(s: ResourceStrategy, body: Record<string, unknown>): T {
  const properties: Properties = { apiVersion: t.string(), kind: t.string(), metadata: objectMetaSchema, ...s.schema };
  const { value, errors } = normalizeObject(body, properties);
  const obj = value as T;
  if (!obj.metadata) obj.metadata = {};
  if (errors.length) throw invalid({ group: s.group, kind: s.kind }, typeof obj.metadata.name === 'string' ? obj.metadata.name : '', errors);
  return obj;
}

/** Upstream EnsureObjectNamespaceMatchesRequestNamespace. */
function checkNamespace(obj: ApiObject, namespace: string): void {
  if (obj.metadata.namespace && obj.metadata.namespace !== namespace) {
    throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
  }
}

/**
 * Upstream podutil.UpdatePodCondition: the condition replaces any of its type whole (reason and
 * message included); lastTransitionTime is kept while the status stays the same.
 */
export function setPodCondition(pod: Pod, cond: { type: string; status: string; reason?: string; message?: string }): void {
  const status = (pod.status ??= {});
  const conditions = (status.conditions ??= []);
  const i = conditions.findIndex((c) => c.type === cond.type);
  const old = i >= 0 ? conditions[i] : undefined;
  const next: PodCondition = {
    type: cond.type,
    status: cond.status,
    lastTransitionTime: old && old.status === cond.status && old.lastTransitionTime ? old.lastTransitionTime : nowRFC3339(),
    ...(cond.reason ? { reason: cond.reason } : {}),
    ...(cond.message ? { message: cond.message } : {}),
  };
  if (old) conditions[i] = next;
  else conditions.push(next);
}

/**
 * Upstream BindingREST.Create / setPodNodeAndMetadata. `name` is the URL's pod name (undefined for
 * the legacy collection, which takes the body's).
 */
async function bindPod(req: ActionRequest): Promise<Status> {
  const pods = podsOf(req.registry);
  const binding = decode<Binding>(bindingStrategy, req.body);
  const name = binding.metadata.name ?? '';
  if (req.name !== undefined && req.name !== name) throw badRequest('name in URL does not match name in Binding object');
  checkNamespace(binding, req.namespace);
  const errs = validateBinding(binding);
  if (errs.length) throw invalid({ group: '', kind: 'Binding' }, name, errs);
  if (!name) throw badRequest('Name parameter required.');
  const node = binding.target!.name!;
  const pre = { uid: binding.metadata.uid, resourceVersion: binding.metadata.resourceVersion };
  const annotations = binding.metadata.annotations ?? {};
  const assign = (o: ApiObject): void => {
    const pod = o as Pod;
    // Upstream storage.Preconditions: a mismatch is an invalid object, answered as a Conflict on pods.
    if (pre.uid && pre.uid !== pod.metadata.uid) {
      throw conflict(pods.strategy.groupResource, name, `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${pod.metadata.uid ?? ''}`);
    }
    if (pre.resourceVersion && pre.resourceVersion !== pod.metadata.resourceVersion) {
      throw conflict(
        pods.strategy.groupResource,
        name,
        `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${pod.metadata.resourceVersion ?? ''}`,
      );
    }
    // Upstream returns plain errors here, which assignPod turns into Conflicts on pods/binding.
    const refuse = (why: string) => conflict({ group: '', resource: 'pods/binding' }, name, why);
    if (pod.metadata.deletionTimestamp) throw refuse(`pod ${name} is being deleted, cannot be assigned to a host`);
    if (pod.spec?.nodeName) throw refuse(`pod ${name} is already assigned to node ${JSON.stringify(pod.spec.nodeName)}`);
    if ((pod.spec?.schedulingGates ?? []).length) throw refuse(`pod ${name} has non-empty .spec.schedulingGates`);
    (pod.spec ??= {}).nodeName = node;
    if (Object.keys(annotations).length) pod.metadata.annotations = { ...pod.metadata.annotations, ...annotations };
    setPodCondition(pod, { type: POD_SCHEDULED, status: 'True' });
  };
  if (req.dryRun) {
    // Everything but the write (upstream passes dryRun to GuaranteedUpdate).
    assign(await pods.get(req.namespace, name));
  } else if (!(await pods.guaranteedUpdate(req.namespace, name, assign))) {
    throw notFound(pods.strategy.groupResource, name);
  }
  return created();
}

const isTerminal = (pod: Pod): boolean => pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed';

/**
 * Upstream EvictionREST.Create without PodDisruptionBudgets (none are served, so every eviction is
 * allowed): the pod gets DisruptionTarget=True (unless terminal) and is deleted with the Eviction's
 * deleteOptions. A pod already being deleted is left alone.
 */
async function evictPod(req: ActionRequest): Promise<Status> {
  const pods = podsOf(req.registry);
  const eviction = decode<Eviction>(evictionBodyStrategy, req.body);
  const name = eviction.metadata.name ?? '';
  if (req.name !== name) throw badRequest('name in URL does not match name in Eviction object');
  checkNamespace(eviction, req.namespace);
  const opts: RequestDeleteOptions = eviction.deleteOptions ? deleteOptionsFromBody(eviction.deleteOptions, 'v1') : {};
  validateDeleteOptions(opts);
  // Upstream propagateDryRun: the query's dryRun applies when the deleteOptions name none.
  const dryRun = req.dryRun || isDryRun(opts.dryRun);
  const pod = (await pods.get(req.namespace, name)) as Pod;
  if (pod.metadata.deletionTimestamp) return created();
  let preconditions = opts.preconditions;
  if (!dryRun && !isTerminal(pod)) {
    const updated = await pods.guaranteedUpdate(req.namespace, name, (o) => {
      checkDeletePreconditions(o, preconditions, pods.strategy);
      setPodCondition(o as Pod, { type: DISRUPTION_TARGET, status: 'True', reason: EVICTION_BY_EVICTION_API, message: EVICTION_MESSAGE });
    });
    if (!updated) throw notFound(pods.strategy.groupResource, name);
    // The condition was this request's own write: a resourceVersion precondition moves along with it.
    if (preconditions?.resourceVersion !== undefined) preconditions = { ...preconditions, resourceVersion: updated.metadata.resourceVersion };
  }
  await pods.delete(req.namespace, name, { ...storeDeleteOptions({ ...opts, ...(preconditions ? { preconditions } : {}) }), dryRun });
  return created();
}
