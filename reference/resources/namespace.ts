// Namespace, core v1: the strategy (with upstream's `finalize` subresource) and the lifecycle
// admission that guards namespaced creates. The namespace controller, which empties a deleted
// namespace and then removes the `kubernetes` finalizer through `finalize`, is a client of the API
// in the controller manager (reference/controllers/namespace.ts), the same division of work as
// upstream (strategy + NamespaceLifecycle in the API server, namespace controller outside).
import { forbidden, isStatusError, notFound, StatusError } from '../apiserver/errors.js';
import { fieldErrors, isQualifiedName, nameIsDNSLabel, path, type FieldError } from '../apiserver/field-errors.js';
import { t } from '../apiserver/schema.js';
import type { Admission, ResourceStore } from '../apiserver/store.js';
import { defineStrategy, type ApiObject } from '../apiserver/strategy.js';
import { fieldAt } from '../apiserver/selectors.js';

/** The spec finalizer the namespace controller removes once the namespace is empty. */
export const FINALIZER_KUBERNETES = 'kubernetes';
/** The label every namespace carries with its own name (upstream kubernetes.io/metadata.name). */
export const LABEL_METADATA_NAME = 'orch.io/metadata.name';
/** Namespaces that exist from the start (`node-lease`: spec 001 §2.2, one Lease per node). */
export const INITIAL_NAMESPACES = ['default', 'kube-system', 'kube-public', 'kube-node-lease', 'node-lease'];
/** Namespaces upstream's NamespaceLifecycle refuses to delete. */
const IMMORTAL = new Set(['default', 'kube-system', 'kube-public']);
const NAMESPACES = { group: '', resource: 'namespaces' };

interface Namespace extends ApiObject {
  spec?: { finalizers?: string[] };
  status?: { phase?: string; conditions?: unknown[] };
}

export const namespaceStrategy = defineStrategy({
  group: '',
  version: 'v1',
  kind: 'Namespace',
  resource: 'namespaces',
  singular: 'namespace',
  shortNames: ['ns'],
  namespaced: false,
  // Upstream: metadata.name and status.phase (not metadata.namespace).
  fieldSelectors: { 'status.phase': fieldAt('status.phase') },
  hasStatus: true,
  // PUT namespaces/{name}/finalize: the only way spec.finalizers changes (the namespace controller).
  finalizeSubresource: true,
  deleteResponse: 'object',
  validateName: nameIsDNSLabel,
  // Upstream core/v1: status.conditions merge on type; spec.finalizers has no strategy.
  patchStrategies: { 'status.conditions': { strategy: 'merge', mergeKey: 'type' } },
  description: 'A scope for names: namespaced objects live in exactly one namespace, and deleting it deletes them all.',
  schema: {
    spec: t.object(
      {
        finalizers: t.array(
          t.string(),
          'Cleanup steps that must finish before the namespace is removed; the server adds `kubernetes`, which the namespace controller removes once the namespace is empty. Changed only through the finalize subresource.',
        ),
      },
      'How the namespace is cleaned up.',
    ),
    status: t.object(
      {
        phase: t.string('Active, or Terminating once deletion has been requested.'),
        conditions: t.array(
          t.object(
            {
              type: t.string('Type of the condition (such as NamespaceDeletionContentFailure).'),
              status: t.string('True, False or Unknown.'),
              lastTransitionTime: t.string('When the status last changed.'),
              reason: t.string('Machine-readable CamelCase reason for the last transition.'),
              message: t.string('Human-readable details about the last transition.'),
            },
            'One observation about the namespace, mostly about its deletion.',
          ),
          'What the namespace controller observed, mostly while the namespace is deleted. Merged on type.',
        ),
      },
      'Observed state of the namespace, written by the server and the namespace controller.',
    ),
  },

  prepareForCreate(o: ApiObject): void {
    const ns = o as Namespace;
    ns.status = { phase: 'Active' };
    const finalizers = ns.spec?.finalizers ?? [];
    if (!finalizers.includes(FINALIZER_KUBERNETES)) ns.spec = { ...ns.spec, finalizers: [...finalizers, FINALIZER_KUBERNETES] };
  },

  prepareForUpdate(o: ApiObject, oldObj: ApiObject): void {
    // Spec finalizers change only through `finalize` (the namespace controller), as upstream.
    const ns = o as Namespace;
    const old = oldObj as Namespace;
    if (old.spec === undefined) delete ns.spec;
    else ns.spec = old.spec;
  },

  // Upstream labels every namespace kubernetes.io/metadata.name=<name> (renamed here), whatever the
  // client sent, so that namespace selectors can pick namespaces by name.
  canonicalize(o: ApiObject): void {
    const name = o.metadata.name;
    if (name) o.metadata.labels = { ...o.metadata.labels, [LABEL_METADATA_NAME]: name };
  },

  prepareForDeletion(o: ApiObject): void {
    const ns = o as Namespace;
    ns.status = { ...ns.status, phase: 'Terminating' };
  },

  validate(o: ApiObject): FieldError[] {
    const errs: FieldError[] = [];
    const at = path('spec').child('finalizers');
    for (const f of (o as Namespace).spec?.finalizers ?? []) {
      for (const m of isQualifiedName(f)) errs.push(fieldErrors.invalid(at, f, m));
      if (!f.includes('/') && f !== FINALIZER_KUBERNETES) {
        errs.push(fieldErrors.invalid(at, f, 'name is neither a standard finalizer name nor is it fully qualified'));
      }
    }
    return errs;
  },

  deletionBlocked(o: ApiObject): boolean {
    return ((o as Namespace).spec?.finalizers?.length ?? 0) > 0;
  },

  checkDelete(o: ApiObject): StatusError | undefined {
    const name = o.metadata.name ?? '';
    return IMMORTAL.has(name) ? forbidden(NAMESPACES, name, 'this namespace may not be deleted') : undefined;
  },
});

/** Creates in a namespace that is missing (404) or terminating (403) are refused. */
/**
 * Creates the initial namespaces that do not exist yet, as upstream's system namespaces controller
 * does: one another API server sharing the storage created in the meantime is taken as it is
 * (AlreadyExists is success), so servers starting at once on a fresh store all start. Any other
 * failure (storage unavailable) fails the start.
 */
export async function ensureInitialNamespaces(namespaces: ResourceStore): Promise<void> {
  for (const name of INITIAL_NAMESPACES) {
    try {
      await namespaces.get('', name);
      continue;
    } catch (err) {
      if (!(isStatusError(err) && err.code === 404)) throw err;
    }
    try {
      await namespaces.create('', { metadata: { name } });
    } catch (err) {
      if (!(isStatusError(err) && err.status.reason === 'AlreadyExists')) throw err;
    }
  }
}

export class NamespaceLifecycle implements Admission {
  constructor(private readonly namespaces: () => ResourceStore | undefined) {}

  async admitCreate(store: ResourceStore, namespace: string, obj: ApiObject): Promise<void> {
    const nsStore = this.namespaces();
    if (!store.strategy.namespaced || !nsStore) return;
    let ns: ApiObject;
    try {
      ns = await nsStore.get('', namespace);
    } catch (err) {
      if (err instanceof StatusError && err.code === 404) throw notFound(NAMESPACES, namespace);
      throw err;
    }
    if (ns.metadata.deletionTimestamp) {
      throw forbidden(
        store.strategy.groupResource,
        obj.metadata.name ?? '',
        `unable to create new content in namespace ${namespace} because it is being terminated`,
        [{ reason: 'NamespaceTerminating', message: `namespace ${namespace} is being terminated`, field: 'metadata.namespace' }],
      );
    }
  }
}
