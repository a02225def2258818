// The DefaultTolerationSeconds admission plug-in (upstream plugin/pkg/admission/defaulttolerationseconds):
// every pod written through the pods endpoint itself (create, and update as upstream; never a
// subresource) that does not already tolerate the node controller's NoExecute taints
// `node.orch.io/not-ready` and `node.orch.io/unreachable` gets
// `{key, operator: Exists, effect: NoExecute, tolerationSeconds: 300}` for each, so that the
// taint-based eviction controller leaves it 5 minutes on a failing node before deleting it. The
// seconds are the API server's `--default-not-ready-toleration-seconds` and
// `--default-unreachable-toleration-seconds`.
import type { AdmissionFactory, AdmissionSettings } from '../apiserver/apiserver.js';
import { isPlainObject } from '../apiserver/schema.js';
import type { Admission, ResourceStore } from '../apiserver/store.js';
import type { ApiObject } from '../apiserver/strategy.js';
import { TAINT_NODE_NOT_READY, TAINT_NODE_UNREACHABLE, type Toleration } from '../taints.js';

export { TAINT_NODE_NOT_READY, TAINT_NODE_UNREACHABLE } from '../taints.js';
export const DEFAULT_TOLERATION_SECONDS = 300;


/**
 * Upstream's test, which looks at key and effect only: a toleration of the taint's key, or of every
 * key (empty key), for NoExecute or every effect (empty effect). Operator and value are not looked
 * at, so `{key: node.orch.io/not-ready, operator: Equal, value: x}` counts too, as upstream.
 */
function covers(t: Toleration, key: string): boolean {
  return (t.key === key || !t.key) && (t.effect === 'NoExecute' || !t.effect);
}

/** Adds the missing default tolerations to a pod's spec (in place). */
export function addDefaultTolerations(pod: ApiObject, settings: AdmissionSettings = {}): void {
  if (pod['spec'] === undefined) pod['spec'] = {};
  const spec = pod['spec'];
  // Not an object: validation refuses the pod, nothing to add to.
  if (!isPlainObject(spec)) return;
  const tolerations = (Array.isArray(spec['tolerations']) ? spec['tolerations'] : []) as Toleration[];
  const added: Toleration[] = [];
  const defaults: Array<[string, number | undefined]> = [
    [TAINT_NODE_NOT_READY, settings.defaultNotReadyTolerationSeconds],
    [TAINT_NODE_UNREACHABLE, settings.defaultUnreachableTolerationSeconds],
  ];
  for (const [key, seconds] of defaults) {
    if (tolerations.some((t) => isPlainObject(t) && covers(t, key))) continue;
    added.push({ key, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: seconds ?? DEFAULT_TOLERATION_SECONDS });
  }
  if (added.length) spec['tolerations'] = [...tolerations, ...added];
}

const isPods = (store: ResourceStore): boolean => store.strategy.group === '' && store.strategy.resource === 'pods';

export function defaultTolerationSeconds(settings: AdmissionSettings = {}): Admission {
  return {
    async admitCreate(store, _namespace, obj) {
      if (isPods(store)) addDefaultTolerations(obj, settings);
    },
    // Upstream handles updates too: a PUT, patch or apply that drops the defaults gets them back
    // (pod updates may only add tolerations, so it would otherwise be refused).
    async admitUpdate(store, _namespace, obj) {
      if (isPods(store)) addDefaultTolerations(obj, settings);
    },
  };
}

/** The REFERENCE_ADMISSION entry. */
export const defaultTolerationSecondsAdmission: AdmissionFactory = (_registry, settings) => defaultTolerationSeconds(settings);
